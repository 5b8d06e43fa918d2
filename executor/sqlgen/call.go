package sqlgen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schema"
)

// Call is a planned function call.
type Call struct {
	Function *schema.Function
	// Given are the parameters the request supplies, in declaration order;
	// the others take their defaults.
	Given []schema.Param
	// WholeBody passes the request body as the function's single
	// parameter (an unnamed json/jsonb one, or Prefer: params=single-object).
	WholeBody bool
	// Args is the JSON object holding the arguments (or, with WholeBody,
	// the body itself).
	Args []byte
	// Range pages a set of scalars; Count adds its exact total.
	Range apirequest.Range
	Count bool
}

// CallFunction builds the statement that calls c.Function, which returns
// a scalar, a set of scalars or void (rows go through CallRead), and
// shapes its result as PostgREST does: a set as a JSON array, a scalar as
// its JSON value. Argument values travel in one JSON argument and are
// converted to the parameter types by json_to_record, so "1", 1 and [1]
// all reach an integer[] parameter the way PostgreSQL casts them.
func CallFunction(c Call) Statement {
	f := c.Function
	g := &gen{}
	from := g.callFrom(c)
	var inner, body string
	if f.Returns.Shape == schema.ReturnsVoid {
		inner = "select from " + from + " pgrst_call"
		body = "'null'"
	} else {
		inner = "select pgrst_call.pgrst_scalar from " + from + " pgrst_call(pgrst_scalar)"
		body = "coalesce(pg_catalog.json_agg(_pgrst_t.pgrst_scalar), '[]')"
		if !f.Returns.Set {
			body = "coalesce(pg_catalog.json_agg(_pgrst_t.pgrst_scalar)->0, 'null')"
		}
	}
	if !f.Returns.Set || f.Returns.Shape == schema.ReturnsVoid {
		cols := fmt.Sprintf(resultColumns, "null::bigint", body+"::text")
		return Statement{SQL: "select " + cols + " from (" + inner + ") _pgrst_t", Args: g.args}
	}
	// A set of scalars pages like a table: the call runs once, in a CTE
	// that the page and the exact count both read.
	page := "select pgrst_scalar from pgrst_all"
	if c.Range.Limit != nil {
		page += " limit " + g.param(strconv.FormatInt(*c.Range.Limit, 10))
	}
	if c.Range.Offset != 0 {
		page += " offset " + g.param(strconv.FormatInt(c.Range.Offset, 10))
	}
	total := "null::bigint"
	if c.Count {
		total = "(select pg_catalog.count(*) from pgrst_all)"
	}
	cols := fmt.Sprintf(resultColumns, total, body+"::text")
	return Statement{SQL: "with pgrst_all as (" + inner + ") select " + cols + " from (" + page + ") _pgrst_t", Args: g.args}
}

// CallRead calls a function returning rows and shapes them with the read
// plan p (select, filters, order, limit, embeds, counts), the call taking
// the place of the root relation. single renders one object (a function
// that is not SETOF) instead of an array. The call is a CTE of its own, so
// it runs once even when an exact count reads its rows a second time (a
// function that writes would otherwise write twice), as in PostgREST.
func CallRead(c Call, p *plan.Read, opts ReadOptions, single bool) (Statement, *Statement) {
	g := &gen{}
	with := "pgrst_call_rows as (select pgrst_call.* from " + g.callFrom(c) + " pgrst_call), "
	g.rootFrom = "pgrst_call_rows"
	if f := c.Function; f.Returns.RelationName != "" {
		// The rows are the returned table's: computed columns take that
		// type, and an overloaded one cannot be chosen for a bare record.
		g.rootAlias, g.rootRowType = p.Alias, QualifiedName(f.Returns.RelationSchema, f.Returns.RelationName)
	}
	if single && opts.Representation.Media == apirequest.MediaJSON {
		opts.Representation.Media = apirequest.MediaSingleObject
	}
	return g.read(p, opts, with)
}

// callFrom renders the call of c.Function as a FROM item, its alias left
// to the caller, for CallFunction and CallRead alike: the body as the one
// argument, no arguments, or the given ones by name, read out of the JSON
// object of arguments by json_to_record.
func (g *gen) callFrom(c Call) string {
	f := c.Function
	fn := QualifiedName(f.Schema, f.Name)
	switch {
	case c.WholeBody:
		return fn + "(" + g.paramBytes(c.Args) + "::" + f.Params[0].Type + ")"
	case len(c.Given) == 0:
		return fn + "()"
	}
	defs := make([]string, len(c.Given))
	named := make([]string, len(c.Given))
	for i, p := range c.Given {
		defs[i] = QuoteIdent(p.Name) + " " + p.Type
		variadic := ""
		if p.Variadic {
			variadic = "variadic "
		}
		named[i] = variadic + QuoteIdent(p.Name) + " := pgrst_args." + QuoteIdent(p.Name)
	}
	return "pg_catalog.json_to_record(" + g.paramBytes(c.Args) + "::json) as pgrst_args(" +
		strings.Join(defs, ", ") + "), lateral " + fn + "(" + strings.Join(named, ", ") + ")"
}
