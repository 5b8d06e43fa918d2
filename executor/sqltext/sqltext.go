// Package sqltext is the only way SQL text is made in pgrest. A value of
// type SQL can come from four places and no other:
//
//   - Const: SQL written in the code as an untyped string constant;
//   - Param: a $n placeholder;
//   - Ident and Qualified: a name quoted by the one quoting function;
//   - TypeName: a type name that ParseTypeName checked, or one built
//     from quoted names.
//
// Everything that combines SQL values (Join, Fmt, Builder) takes SQL
// values and constant separators only. Request text is a plain string,
// and a plain string does not convert to SQL: code that would splice it
// into a statement does not compile.
//
// The one exception is Catalog, for SQL that the database itself wrote
// (a column's default expression from pg_get_expr): it is never request
// text, and its constructor's name says where it comes from.
package sqltext

import (
	"strconv"
	"strings"
)

// SQL is a piece of SQL text that is safe to send: made only of constant
// SQL, placeholders, quoted identifiers and checked type names.
type SQL struct{ s string }

// constant is unexported so that only an untyped string constant
// converts to it implicitly: Const("select 1") compiles, Const(s) with s
// a string variable does not (the same shape as go-safeweb's safesql).
type constant string

// Const makes SQL from a constant written in the code.
func Const(c constant) SQL { return SQL{string(c)} }

// String returns the text, for sending to the server and for tests.
func (s SQL) String() string { return s.s }

// IsEmpty says whether s holds no text.
func (s SQL) IsEmpty() bool { return s.s == "" }

// Ident quotes name as a PostgreSQL identifier: wrapped in double quotes,
// inner double quotes doubled. It is the one quoting function. NUL cannot
// appear in an identifier and would end the protocol string, so it is
// dropped; callers that take names from a request refuse NUL before.
func Ident(name string) SQL {
	var b strings.Builder
	b.Grow(len(name) + 2)
	writeIdent(&b, name)
	return SQL{b.String()}
}

// writeIdent writes name quoted, as Ident returns it.
func writeIdent(b *strings.Builder, name string) {
	b.WriteByte('"')
	if strings.IndexByte(name, '"') < 0 && strings.IndexByte(name, 0) < 0 {
		// Nothing to double or drop: the usual name, in one write.
		b.WriteString(name)
		b.WriteByte('"')
		return
	}
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
}

// Qualified renders schema.name with both parts quoted.
func Qualified(schema, name string) SQL {
	var b strings.Builder
	b.Grow(len(schema) + len(name) + 5)
	writeIdent(&b, schema)
	b.WriteByte('.')
	writeIdent(&b, name)
	return SQL{b.String()}
}

// Param is the placeholder of the n-th bind parameter ($1 is the first).
func Param(n int) SQL {
	if n > 0 && n < len(smallParams) {
		return smallParams[n]
	}
	return SQL{"$" + strconv.Itoa(n)}
}

// Catalog makes SQL from text the database wrote about itself, such as a
// column default from pg_get_expr. Never call it with request text.
func Catalog(expr string) SQL { return SQL{expr} }

// Concat joins parts with nothing between them.
func Concat(parts ...SQL) SQL {
	n := 0
	for _, p := range parts {
		n += len(p.s)
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range parts {
		b.WriteString(p.s)
	}
	return SQL{b.String()}
}

// Join joins parts with a constant separator.
func Join(parts []SQL, sep constant) SQL {
	switch len(parts) {
	case 0:
		return SQL{}
	case 1:
		return parts[0]
	}
	n := len(sep) * (len(parts) - 1)
	for _, p := range parts {
		n += len(p.s)
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range parts {
		if i > 0 {
			b.WriteString(string(sep))
		}
		b.WriteString(p.s)
	}
	return SQL{b.String()}
}

// Fmt replaces each %s of the constant format, in order, with an
// argument. It knows no other verb: "%%" is not special, and a format
// whose %s count differs from len(args) is a bug in the code, so it
// panics (every statement shape is covered by the golden tests).
func Fmt(format constant, args ...SQL) SQL {
	f := string(format)
	// The exact length, so the text is built in one allocation (when the
	// format's %s count is wrong, the panic below comes first or the
	// size is merely off).
	n := len(f) - 2*len(args)
	for _, a := range args {
		n += len(a.s)
	}
	var b strings.Builder
	b.Grow(max(n, 0))
	used := 0
	for {
		i := strings.Index(f, "%s")
		if i < 0 {
			break
		}
		if used == len(args) {
			panic("sqltext.Fmt: more %s than arguments in " + strconv.Quote(string(format)))
		}
		b.WriteString(f[:i])
		b.WriteString(args[used].s)
		used++
		f = f[i+2:]
	}
	if used != len(args) {
		panic("sqltext.Fmt: fewer %s than arguments in " + strconv.Quote(string(format)))
	}
	b.WriteString(f)
	return SQL{b.String()}
}

// Builder accumulates SQL. Its zero value is ready to use.
type Builder struct{ b strings.Builder }

// Write appends SQL values.
func (b *Builder) Write(parts ...SQL) {
	for _, p := range parts {
		b.b.WriteString(p.s)
	}
}

// Const appends constant SQL.
func (b *Builder) Const(c constant) { b.b.WriteString(string(c)) }

// SQL returns what was written.
func (b *Builder) SQL() SQL { return SQL{b.b.String()} }
