package sqltext

import "strconv"

// Writes that append a piece of SQL to a Builder without first making it
// a value of its own: a statement is then built in one buffer instead of
// one allocation per quoted name, placeholder and clause. Each writes
// exactly the text its counterpart function returns.

// Grow makes room for n more bytes.
func (b *Builder) Grow(n int) { b.b.Grow(n) }

// Ident appends name quoted, as Ident returns it.
func (b *Builder) Ident(name string) { writeIdent(&b.b, name) }

// Qualified appends schema.name with both parts quoted, as Qualified
// returns it.
func (b *Builder) Qualified(schema, name string) {
	writeIdent(&b.b, schema)
	b.b.WriteByte('.')
	writeIdent(&b.b, name)
}

// Param appends the placeholder of the n-th bind parameter, as Param
// returns it.
func (b *Builder) Param(n int) {
	var digits [20]byte
	b.b.WriteByte('$')
	b.b.Write(strconv.AppendInt(digits[:0], int64(n), 10))
}

// Len is the length of the text in bytes.
func (s SQL) Len() int { return len(s.s) }

// smallParams are the placeholders of the parameters most statements
// have, made once.
var smallParams = func() []SQL {
	ps := make([]SQL, 65)
	for n := 1; n < len(ps); n++ {
		ps[n] = SQL{"$" + strconv.Itoa(n)}
	}
	return ps
}()

// QualifiedType appends the type name QualifiedType returns.
func (b *Builder) QualifiedType(schema, name string, arrayDims int) {
	if schema != "" {
		b.Qualified(schema, name)
	} else {
		b.Ident(name)
	}
	for range arrayDims {
		b.b.WriteString("[]")
	}
}
