// Package sqlgen turns a plan into SQL text and bind parameters. It is
// pure: no database, no I/O. Identifiers are quoted by QuoteIdent and by
// nothing else; values are always bind parameters.
package sqlgen

import "strings"

// QuoteIdent renders name as a PostgreSQL quoted identifier: wrapped in
// double quotes with inner double quotes doubled. NUL cannot appear in an
// identifier and would end the protocol string, so it is dropped.
func QuoteIdent(name string) string {
	var b strings.Builder
	b.Grow(len(name) + 2)
	b.WriteByte('"')
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '"':
			b.WriteString(`""`)
		case 0:
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// QualifiedName renders schema.name with both parts quoted.
func QualifiedName(schema, name string) string {
	return QuoteIdent(schema) + "." + QuoteIdent(name)
}
