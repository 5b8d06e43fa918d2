package changes

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"
)

// jsonValue is one column's value as JSON, as Supabase Realtime sends it
// (realtime.cast, which is to_jsonb of the value cast to the column's
// type). A nil raw is a value that is absent (an unchanged TOAST value
// with no old copy), which payloads leave out.
type jsonValue struct{ raw []byte }

var jsonNull = jsonValue{raw: []byte("null")}

func (v jsonValue) isNull() bool { return v.raw == nil || bytes.Equal(v.raw, jsonNull.raw) }

// typeKind is how to_jsonb renders a type (json_categorize_type in
// PostgreSQL's json.c): numbers, booleans, dates and timestamps in
// ISO 8601 form, JSON as itself, arrays element by element, and
// everything else as its text output in a JSON string.
type typeKind uint8

const (
	kindString typeKind = iota
	kindNumber
	kindBool
	kindJSON
	kindDate
	kindTimestamp
	kindTimestamptz
	kindArray
)

// typeInfo is what the feed knows of a column type: its name as
// Supabase reports it in "columns" (pg_type.typname of the column's own
// type, so a domain's name and _int4 for int4[]), and how its values
// become JSON (by its base type).
type typeInfo struct {
	name string
	kind typeKind
	elem *typeInfo // for kindArray
}

// kindOf categorizes a base type by its OID and category, as to_jsonb
// does: only these built-in OIDs are numbers, booleans, dates,
// timestamps or JSON.
func kindOf(oid uint32, category string) typeKind {
	switch oid {
	case 20, 21, 23, 700, 701, 1700: // int8, int2, int4, float4, float8, numeric
		return kindNumber
	case 16:
		return kindBool
	case 114, 3802: // json, jsonb
		return kindJSON
	case 1082:
		return kindDate
	case 1114:
		return kindTimestamp
	case 1184:
		return kindTimestamptz
	}
	if category == "A" {
		return kindArray
	}
	return kindString
}

// toJSON renders a value in text format (pgoutput's, with the
// replication session's DateStyle ISO and TimeZone UTC) as to_jsonb
// would render the same value in a session with TimeZone UTC.
func toJSON(t *typeInfo, text string) []byte {
	switch t.kind {
	case kindNumber:
		if isJSONNumber(text) {
			return []byte(text)
		}
		return jsonString(text) // NaN, Infinity: to_jsonb makes them strings
	case kindBool:
		if text == "t" {
			return []byte("true")
		}
		return []byte("false")
	case kindJSON:
		// Compact, as Realtime's JSON encoder writes a decoded jsonb.
		var b bytes.Buffer
		if json.Compact(&b, []byte(text)) == nil {
			return b.Bytes()
		}
		return jsonString(text)
	case kindDate:
		return jsonString(text)
	case kindTimestamp, kindTimestamptz:
		return jsonString(isoTimestamp(text, t.kind == kindTimestamptz))
	case kindArray:
		if t.elem != nil {
			if b, ok := arrayToJSON(t.elem, text); ok {
				return b
			}
		}
	}
	return jsonString(text)
}

func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// isJSONNumber says whether PostgreSQL's text of a number is also a JSON
// number (it is not for NaN and the infinities).
func isJSONNumber(s string) bool {
	if s == "" {
		return false
	}
	var x json.Number
	return json.Unmarshal([]byte(s), &x) == nil
}

// isoTimestamp turns ISO DateStyle output, "2024-05-01 12:30:00.5+00",
// into to_jsonb's XSD form, "2024-05-01T12:30:00.5+00:00" (the offset
// always with minutes). infinity and -infinity stay as they are.
func isoTimestamp(s string, withZone bool) string {
	date, rest, ok := strings.Cut(s, " ")
	if !ok {
		return s
	}
	if strings.HasSuffix(rest, " BC") {
		return s // left as PostgreSQL wrote it; to_jsonb's form for BC years is rare enough
	}
	if withZone {
		if i := strings.LastIndexAny(rest, "+-"); i > 0 && len(rest)-i == 3 {
			rest += ":00"
		}
	}
	return date + "T" + rest
}

// arrayToJSON parses an array's text form ({1,2,NULL}, {"a b",c},
// {{1,2},{3,4}}) into a JSON array of its elements rendered by elem.
func arrayToJSON(elem *typeInfo, s string) ([]byte, bool) {
	if i := strings.Index(s, "={"); i > 0 && s[0] == '[' {
		s = s[i+1:] // explicit bounds, [0:1]={...}: to_jsonb drops them
	}
	p := arrayParser{s: s, elem: elem}
	var b bytes.Buffer
	if !p.parse(&b) || p.i != len(s) {
		return nil, false
	}
	return b.Bytes(), true
}

type arrayParser struct {
	s    string
	i    int
	elem *typeInfo
}

func (p *arrayParser) parse(b *bytes.Buffer) bool {
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return false
	}
	p.i++
	b.WriteByte('[')
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		b.WriteByte(']')
		return true
	}
	for first := true; ; first = false {
		if !first {
			b.WriteByte(',')
		}
		if p.i >= len(p.s) {
			return false
		}
		switch p.s[p.i] {
		case '{':
			if !p.parse(b) {
				return false
			}
		case '"':
			v, ok := p.quoted()
			if !ok {
				return false
			}
			b.Write(toJSON(p.elem, v))
		default:
			j := p.i
			for j < len(p.s) && p.s[j] != ',' && p.s[j] != '}' {
				j++
			}
			v := p.s[p.i:j]
			p.i = j
			if v == "NULL" {
				b.WriteString("null")
			} else {
				b.Write(toJSON(p.elem, v))
			}
		}
		if p.i >= len(p.s) {
			return false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			b.WriteByte(']')
			return true
		default:
			return false
		}
	}
}

func (p *arrayParser) quoted() (string, bool) {
	var sb strings.Builder
	for p.i++; p.i < len(p.s); p.i++ {
		switch c := p.s[p.i]; c {
		case '\\':
			p.i++
			if p.i < len(p.s) {
				sb.WriteByte(p.s[p.i])
			}
		case '"':
			p.i++
			return sb.String(), true
		default:
			sb.WriteByte(c)
		}
	}
	return "", false
}

// compare orders two non-null values the way the filters need: numbers
// by value, strings by their bytes (PostgreSQL would use the column's
// collation; with the C collation the two agree), anything else by its
// JSON text, which for booleans only tells equal from different.
func compare(a, b jsonValue) int {
	if len(a.raw) > 0 && len(b.raw) > 0 {
		if isNumberStart(a.raw[0]) && isNumberStart(b.raw[0]) {
			x, okx := new(big.Rat).SetString(string(a.raw))
			y, oky := new(big.Rat).SetString(string(b.raw))
			if okx && oky {
				return x.Cmp(y)
			}
		}
		if a.raw[0] == '"' && b.raw[0] == '"' {
			var x, y string
			if json.Unmarshal(a.raw, &x) == nil && json.Unmarshal(b.raw, &y) == nil {
				return strings.Compare(x, y)
			}
		}
	}
	return bytes.Compare(a.raw, b.raw)
}

func isNumberStart(c byte) bool { return c == '-' || (c >= '0' && c <= '9') }
