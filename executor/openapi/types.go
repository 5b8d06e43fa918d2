package openapi

import (
	"encoding/json"
	"strings"
)

// swaggerType is the Swagger type of a PostgreSQL type name, as PostgREST
// maps it: "" for json and jsonb, which may hold any JSON value.
func swaggerType(pgType string) string {
	switch pgType {
	case "character varying", "character", "text":
		return "string"
	case "boolean":
		return "boolean"
	case "smallint", "integer", "bigint":
		return "integer"
	case "numeric", "real", "double precision":
		return "number"
	case "json", "jsonb":
		return ""
	}
	if strings.HasSuffix(pgType, "[]") {
		return "array"
	}
	return "string"
}

// swaggerFormat is the Swagger format of a PostgreSQL type name, as
// PostgREST writes it: int32 and int64 for the integer types, the type
// name itself for any other.
func swaggerFormat(pgType string) string {
	switch pgType {
	case "smallint", "integer":
		return "int32"
	case "bigint":
		return "int64"
	}
	return pgType
}

// elementType is the element type name of an array type name.
func elementType(pgType string) string { return strings.TrimSuffix(pgType, "[]") }

// baseTypeName drops the type modifiers format_type() writes, so that
// "character varying(40)" is "character varying" and "numeric(10,2)[]"
// is "numeric[]": the name PostgREST puts in format, with the length in
// maxLength. Parentheses inside a quoted identifier are kept.
func baseTypeName(t string) string {
	if !strings.Contains(t, "(") {
		return t
	}
	var b strings.Builder
	quoted, depth := false, 0
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '"':
			quoted = !quoted
		case !quoted && c == '(':
			depth++
			continue
		case !quoted && c == ')' && depth > 0:
			depth--
			continue
		}
		if depth == 0 {
			b.WriteByte(c)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// defaultValue renders a column default (pg_get_expr text) as the JSON
// value a client would get, or nil when it is an expression computed at
// insert time that has no JSON form (nextval(...), arrays, casts to
// other types). Text-like types follow PostgREST: the literal without its
// cast, or the expression itself as a string (now() → "now()").
func defaultValue(pgType, def string) json.RawMessage {
	literal, isLiteral := stripCast(def, pgType)
	switch swaggerType(pgType) {
	case "string":
		s := def
		if isLiteral {
			s = literal
		}
		b, err := marshal(s)
		if err != nil {
			return nil
		}
		return b
	case "integer", "number":
		if !isLiteral {
			literal = def
		}
		var n json.Number
		if err := json.Unmarshal([]byte(literal), &n); err != nil {
			return nil
		}
		return json.RawMessage(literal)
	case "boolean":
		if def == "true" || def == "false" {
			return json.RawMessage(def)
		}
	case "":
		if isLiteral && json.Valid([]byte(literal)) {
			return json.RawMessage(literal)
		}
	}
	return nil
}

// stripCast reads 'literal'::type as the literal, quotes undone.
func stripCast(def, pgType string) (string, bool) {
	s, ok := strings.CutSuffix(def, "::"+pgType)
	if !ok || len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return "", false
	}
	return strings.ReplaceAll(s[1:len(s)-1], "''", "'"), true
}
