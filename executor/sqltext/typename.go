package sqltext

import (
	"errors"
	"strings"
)

// TypeName is a type as it appears after :: in SQL. Only ParseTypeName
// and QualifiedType make one.
type TypeName struct{ sql SQL }

// SQL returns the type name as SQL text.
func (t TypeName) SQL() SQL { return t.sql }

// IsZero says whether t names no type.
func (t TypeName) IsZero() bool { return t.sql.s == "" }

// QualifiedType is schema.name, both quoted, followed by [] for each of
// arrayDims dimensions; schema may be empty. It names a type the
// database's catalog reported.
func QualifiedType(schema, name string, arrayDims int) TypeName {
	if schema != "" {
		return TypeName{withArrayDims(Qualified(schema, name), arrayDims)}
	}
	return TypeName{withArrayDims(Ident(name), arrayDims)}
}

func withArrayDims(s SQL, dims int) SQL {
	if dims == 0 {
		return s
	}
	return SQL{s.s + strings.Repeat("[]", dims)}
}

// ErrTypeName is returned for a cast that is not a type name.
var ErrTypeName = errors.New("not a type name")

// ErrPseudoType is returned for a cast to a pseudo-type (unknown, record,
// anyelement...), which has no values of its own to cast to.
var ErrPseudoType = errors.New("cannot cast to a pseudo-type")

// keywordTypes are the types whose SQL spelling is a keyword, not a
// catalog name ("integer" quoted is no type; "char" quoted is the
// internal one-byte type, not character(1)). They are written as the
// keyword, from this table's constants, never from the request.
var keywordTypes = map[string]SQL{
	"int":       Const("integer"),
	"integer":   Const("integer"),
	"smallint":  Const("smallint"),
	"bigint":    Const("bigint"),
	"real":      Const("real"),
	"float":     Const("float"),
	"boolean":   Const("boolean"),
	"decimal":   Const("decimal"),
	"dec":       Const("dec"),
	"numeric":   Const("numeric"),
	"char":      Const("char"),
	"character": Const("character"),
	"varchar":   Const("varchar"),
	"nchar":     Const("nchar"),
	"bit":       Const("bit"),
	"time":      Const("time"),
	"timestamp": Const("timestamp"),
	"interval":  Const("interval"),
}

// pseudoTypes are pg_catalog's pseudo-types. A cast to one fails inside
// the server (unknown gives an internal error), so it is refused before.
var pseudoTypes = map[string]bool{
	"any": true, "anyelement": true, "anyarray": true, "anynonarray": true, "anyenum": true,
	"anyrange": true, "anymultirange": true, "anycompatible": true, "anycompatiblearray": true,
	"anycompatiblenonarray": true, "anycompatiblerange": true, "anycompatiblemultirange": true,
	"cstring": true, "internal": true, "language_handler": true, "fdw_handler": true,
	"table_am_handler": true, "index_am_handler": true, "tsm_handler": true, "record": true,
	"trigger": true, "event_trigger": true, "pg_ddl_command": true, "void": true, "unknown": true,
}

// MaxTypeNameLength bounds a type name as PostgreSQL bounds identifiers
// (NAMEDATALEN-1 bytes per part); a longer one names no type.
const MaxTypeNameLength = 63

// ParseTypeName checks a cast's type name against the type-name grammar
// and renders it: one or two names separated by a dot (schema.type),
// each a letter or _ followed by letters, digits or _, then any number
// of []. Names fold to lower case, as unquoted SQL names do, and are
// quoted; the keyword spellings (int, bigint, char, timestamp...) keep
// working. No space, $, quote or other punctuation can pass.
func ParseTypeName(s string) (TypeName, error) {
	dims := 0
	for strings.HasSuffix(s, "[]") {
		s = s[:len(s)-2]
		dims++
	}
	schema, name, qualified := strings.Cut(s, ".")
	if !qualified {
		schema, name = "", s
	}
	if !isTypeIdent(name) || (qualified && !isTypeIdent(schema)) {
		return TypeName{}, ErrTypeName
	}
	schema, name = strings.ToLower(schema), strings.ToLower(name)
	if pseudoTypes[name] && (schema == "" || schema == "pg_catalog") {
		return TypeName{}, ErrPseudoType
	}
	if kw, ok := keywordTypes[name]; ok && schema == "" {
		return TypeName{withArrayDims(kw, dims)}, nil
	}
	return QualifiedType(schema, name, dims), nil
}

// isTypeIdent reports whether s is a letter or _ followed by letters,
// digits and _, at most MaxTypeNameLength bytes, ASCII only.
func isTypeIdent(s string) bool {
	if s == "" || len(s) > MaxTypeNameLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
