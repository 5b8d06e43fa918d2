package sqlgen

import (
	"strconv"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// CallFunction builds the statement that calls c.Function, which returns
// a scalar, a set of scalars or void (rows go through CallRead), and
// shapes its result as PostgREST does: a set as a JSON array, a scalar as
// its JSON value. Argument values travel in one JSON argument and are
// converted to the parameter types by json_to_record, so "1", 1 and [1]
// all reach an integer[] parameter the way PostgreSQL casts them.
func CallFunction(c plan.Call) Statement {
	f := c.Function
	g := &gen{}
	var inner, body sqltext.SQL
	if f.Returns.Shape == schemacache.ReturnsVoid {
		inner = sqltext.Fmt("select from %s pgrst_call", g.callFrom(c))
		body = sqltext.Const("'null'")
	} else {
		if f.Returns.Pseudo {
			// A bare record needs a column definition list in FROM; in
			// a select list it is one value, as PostgREST calls it.
			inner = sqltext.Fmt("select pgrst_call.pgrst_scalar from %s", g.callInSelect(c))
		} else {
			inner = sqltext.Fmt("select pgrst_call.pgrst_scalar from %s pgrst_call(pgrst_scalar)", g.callFrom(c))
		}
		body = sqltext.Const("coalesce(pg_catalog.json_agg(_pgrst_t.pgrst_scalar), '[]')")
		if !f.Returns.Set {
			body = sqltext.Const("coalesce(pg_catalog.json_agg(_pgrst_t.pgrst_scalar)->0, 'null')")
		}
	}
	bodyText := sqltext.Fmt("%s::text", body)
	if c.Handler != nil && f.Returns.Shape == schemacache.ReturnsScalar && !f.Returns.Set {
		bodyText = scalarHandlerBody(c.Handler)
	}
	if !f.Returns.Set || f.Returns.Shape == schemacache.ReturnsVoid {
		cols := columns(c.RecordPageTotal, sqltext.Const("null::bigint"), bodyText)
		return Statement{SQL: sqltext.Fmt("select %s from (%s) _pgrst_t", cols, inner), Args: g.args, RecordsPageTotal: c.RecordPageTotal}
	}
	// A set of scalars pages like a table: the call runs once, in a CTE
	// that the page and the exact count both read.
	var page sqltext.Builder
	page.Const("select pgrst_scalar from pgrst_all")
	if c.Range.Limit != nil {
		page.Const(" limit ")
		page.Write(g.param(strconv.FormatInt(*c.Range.Limit, 10)))
	}
	if c.Range.Offset != 0 {
		page.Const(" offset ")
		page.Write(g.param(strconv.FormatInt(c.Range.Offset, 10)))
	}
	total := sqltext.Const("null::bigint")
	if c.Count {
		total = sqltext.Const("(select pg_catalog.count(*) from pgrst_all)")
	}
	cols := columns(c.RecordPageTotal, total, bodyText)
	return Statement{SQL: sqltext.Fmt("with pgrst_all as (%s) select %s from (%s) _pgrst_t", inner, cols, page.SQL()),
		Args: g.args, RecordsPageTotal: c.RecordPageTotal}
}

// CallRead calls a function returning rows and shapes them with the read
// plan p (select, filters, order, limit, embeds, counts), the call taking
// the place of the root relation. single renders one object (a function
// that is not SETOF) instead of an array. The call is a CTE of its own, so
// it runs once even when an exact count reads its rows a second time (a
// function that writes would otherwise write twice), as in PostgREST.
func CallRead(c plan.Call, p *plan.Read, opts ReadOptions, single bool) (Statement, *Statement) {
	g := &gen{}
	if single && opts.Representation.Media == apirequest.MediaJSON {
		opts.Representation.Media = apirequest.MediaSingleObject
	}
	// The call's CTE and the read after it share one builder, given room
	// for both.
	body := bodyExpr(opts)
	readRoom := (&gen{rootFrom: sqltext.Const("pgrst_call_rows")}).statementSize(p, opts, body)
	var w sqltext.Builder
	w.Grow(160 + 64*len(c.Given) + readRoom)
	w.Const("with ")
	if streamShapeOf(opts) != NotStreamed && !c.Function.Inlinable {
		// A streamed read reads its source twice, the count then the rows
		// (writeStreamed): the call is stored so that the function runs
		// once, as it does when the body is built whole. PostgreSQL stores
		// the call of a VOLATILE function by itself; an inlinable one is
		// left to be read twice as a table is, so that the filters reach
		// its query.
		w.Const("pgrst_call_rows as materialized (select pgrst_call.* from ")
	} else {
		w.Const("pgrst_call_rows as (select pgrst_call.* from ")
	}
	g.writeCallFrom(&w, c)
	w.Const(" pgrst_call), ")
	g.rootFrom = sqltext.Const("pgrst_call_rows")
	if f := c.Function; f.Returns.RelationName != "" {
		// The rows are the returned table's: computed columns take that
		// type, and an overloaded one cannot be chosen for a bare record.
		g.rootAlias = p.Alias
		g.rootRowSchema, g.rootRowName = f.Returns.RelationSchema, f.Returns.RelationName
	}
	return g.readInto(&w, p, opts, body)
}

// paramType is a parameter's type as SQL, from the catalog's names of it
// (never from format_type's text, which is for people).
func paramType(p schemacache.Param) sqltext.SQL {
	return sqltext.QualifiedType(p.TypeSchema, p.TypeName, p.TypeArrayDims).SQL()
}

// argumentType is the type an argument is read as from the JSON object of
// arguments. character and bit are read as character varying and bit
// varying, as PostgREST does: as a record column they would mean
// character(1) and bit(1), while a function's own parameter keeps no length
// and takes a value of any length.
func argumentType(p schemacache.Param) sqltext.SQL {
	typeSchema, typeName := argumentTypeName(p)
	return sqltext.QualifiedType(typeSchema, typeName, p.TypeArrayDims).SQL()
}

// argumentTypeName is the schema and name of argumentType.
func argumentTypeName(p schemacache.Param) (typeSchema, typeName string) {
	if p.TypeSchema == "pg_catalog" {
		switch p.TypeName {
		case "bpchar":
			return "pg_catalog", "varchar"
		case "bit":
			return "pg_catalog", "varbit"
		}
	}
	return p.TypeSchema, p.TypeName
}

// callFrom renders the call of c.Function as a FROM item, its alias left
// to the caller, for CallFunction and CallRead alike: the body as the one
// argument, no arguments, or the given ones by name, read out of the JSON
// object of arguments by json_to_record.
func (g *gen) callFrom(c plan.Call) sqltext.SQL {
	args, call := g.callParts(c)
	if args.IsEmpty() {
		return call
	}
	return sqltext.Fmt("%s, lateral %s", args, call)
}

// writeCallFrom writes callFrom's text.
func (g *gen) writeCallFrom(b *sqltext.Builder, c plan.Call) {
	f := c.Function
	if c.WholeBody || len(c.Given) == 0 {
		b.Write(g.callFrom(c))
		return
	}
	b.Const("pg_catalog.json_to_record(")
	b.Write(g.paramBytes(c.Args))
	b.Const("::json) as pgrst_args(")
	for i, p := range c.Given {
		if i > 0 {
			b.Const(", ")
		}
		b.Ident(p.Name)
		b.Const(" ")
		typeSchema, typeName := argumentTypeName(p)
		b.QualifiedType(typeSchema, typeName, p.TypeArrayDims)
	}
	b.Const("), lateral ")
	b.Qualified(f.Schema, f.Name)
	b.Const("(")
	for i, p := range c.Given {
		if i > 0 {
			b.Const(", ")
		}
		if p.Variadic {
			b.Const("variadic ")
		}
		b.Ident(p.Name)
		b.Const(" := pgrst_args.")
		b.Ident(p.Name)
	}
	b.Const(")")
}

// callInSelect renders the call of c.Function in a select list, as the
// FROM item pgrst_call with the one column pgrst_scalar.
func (g *gen) callInSelect(c plan.Call) sqltext.SQL {
	args, call := g.callParts(c)
	sub := sqltext.Fmt("(select %s pgrst_scalar) pgrst_call", call)
	if args.IsEmpty() {
		return sub
	}
	return sqltext.Fmt("%s, lateral %s", args, sub)
}

// callParts is the call of c.Function and, when arguments are given by
// name, the FROM item of json_to_record they are read from (nil
// otherwise).
func (g *gen) callParts(c plan.Call) (args, call sqltext.SQL) {
	f := c.Function
	fn := sqltext.Qualified(f.Schema, f.Name)
	switch {
	case c.WholeBody:
		return sqltext.SQL{}, sqltext.Fmt("%s(%s::%s)", fn, g.paramBytes(c.Args), paramType(f.Params[0]))
	case len(c.Given) == 0:
		return sqltext.SQL{}, sqltext.Fmt("%s()", fn)
	}
	defs := make([]sqltext.SQL, len(c.Given))
	named := make([]sqltext.SQL, len(c.Given))
	for i, p := range c.Given {
		name := sqltext.Ident(p.Name)
		defs[i] = sqltext.Fmt("%s %s", name, argumentType(p))
		named[i] = sqltext.Fmt("%s := pgrst_args.%s", name, name)
		if p.Variadic {
			named[i] = sqltext.Fmt("variadic %s", named[i])
		}
	}
	return sqltext.Fmt("pg_catalog.json_to_record(%s::json) as pgrst_args(%s)", g.paramBytes(c.Args), sqltext.Join(defs, ", ")),
		sqltext.Fmt("%s(%s)", fn, sqltext.Join(named, ", "))
}
