package sqlgen

import (
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// A to-many spread turns each value its level selects into an array in its
// parent's row, one element per embedded row, as PostgREST does: every
// array aggregates the same rows in the same order, so the arrays are
// correlated. The level itself is read as any embedded level is, its own
// embeds aggregated per row: a to-one embed is one element per row (null
// where it has no match), a to-many embed or spread an array per row, so
// their arrays hold one array per row of the spread.

// spreadArraysJoin is the lateral join of a to-many spread: one array per
// column its level exposes, in the level's order, and "body", which
// is null when no row matched (for is.null and !inner). When the parent's
// values are grouped, the arrays are jsonb, which can be grouped.
func (g *gen) spreadArraysJoin(parent *plan.Read, e *plan.Embed, joinKind, inner sqltext.SQL) sqltext.SQL {
	c := e.Plan
	rows := sqltext.Ident(c.Alias + "_r")
	agg := sqltext.Ident(c.Alias + "_agg")
	fn := sqltext.Const("pg_catalog.json_agg")
	if g.groupsValues(parent) {
		fn = sqltext.Const("pg_catalog.jsonb_agg")
	}
	cols := []sqltext.SQL{sqltext.Const("pg_catalog.bool_or(true) as body")}
	for _, n := range c.Exposed() {
		col := sqltext.Ident(n)
		cols = append(cols, sqltext.Fmt("%s(%s.%s) as %s", fn, rows, col, col))
	}
	on := sqltext.Const("true")
	if e.Inner {
		on = sqltext.Fmt("%s.body is not null", agg)
	}
	return sqltext.Fmt("%s(select %s from (%s) as %s) as %s on %s",
		joinKind, sqltext.Join(cols, ", "), inner, rows, agg, on)
}

// spreadArrayItems are the arrays a to-many spread adds to its parent's
// row, under the names of the columns they collect; no rows give empty
// arrays.
func spreadArrayItems(e *plan.Embed) []sqltext.SQL {
	cols := spreadArrayColumns(e)
	names := e.Plan.Exposed()
	out := make([]sqltext.SQL, len(cols))
	for i, col := range cols {
		out[i] = sqltext.Fmt("coalesce(%s, '[]') as %s", col, sqltext.Ident(names[i]))
	}
	return out
}

// spreadArrayColumns are the array columns of a to-many spread's join.
func spreadArrayColumns(e *plan.Embed) []sqltext.SQL {
	agg := sqltext.Ident(e.Plan.Alias + "_agg")
	names := e.Plan.Exposed()
	cols := make([]sqltext.SQL, len(names))
	for i, n := range names {
		cols[i] = sqltext.Fmt("%s.%s", agg, sqltext.Ident(n))
	}
	return cols
}
