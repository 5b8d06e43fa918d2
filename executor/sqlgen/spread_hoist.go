package sqlgen

import (
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// An aggregate inside a to-one spread aggregates its parent's rows, as
// PostgREST hoists it: /tasks?select=status,...projects(budget.sum())
// sums the budget of each status's tasks' projects. The spread's level
// selects the value to aggregate under the field's name, and the first
// level above that is not a to-one spread applies the aggregate and groups
// by everything else it selects.

// markHoisted records that r is a to-one spread's level of parent, whose
// aggregates are its parent's to compute, and whether its values are
// grouped above.
func (g *gen) markHoisted(parent, r *plan.Read) {
	if g.hoisted == nil {
		g.hoisted = map[*plan.Read]bool{}
	}
	g.hoisted[r] = true
	if g.groupsValues(parent) {
		if g.groupedAbove == nil {
			g.groupedAbove = map[*plan.Read]bool{}
		}
		g.groupedAbove[r] = true
	}
}

// groupsValues says whether the values r selects are grouped: r groups its
// rows, or r is a to-one spread's level whose values a level above groups
// by. JSON has no equality, so its embeds' bodies and arrays must be jsonb.
func (g *gen) groupsValues(r *plan.Read) bool { return r.GroupBy || g.groupedAbove[r] }

// hoistedField is an aggregate field of a to-one spread's level: the value
// it aggregates, cast as asked, under its name; nothing for count(), which
// counts the parent's rows.
func (g *gen) hoistedField(r *plan.Read, f *plan.Field) []sqltext.SQL {
	if f.Ref.Column == "" && f.Ref.Computed == nil {
		return nil
	}
	v := g.refExpr(r.Alias, f.Ref)
	if !f.Cast.IsZero() {
		v = sqltext.Fmt("(%s)::%s", v, f.Cast.SQL())
	}
	return []sqltext.SQL{sqltext.Fmt("%s as %s", v, sqltext.Ident(f.Name))}
}

// spreadValue is one value a to-one spread adds to its parent's row: a
// column of the spread's lateral subquery, or all of them (star), or the
// value of an aggregate (agg) still to be applied.
type spreadValue struct {
	expr sqltext.SQL
	name string
	star bool
	agg  *plan.Field
}

// spreadValues lists what a to-one spread adds to its parent, in select
// order. A spread nested in it adds what its own items add, which the
// spread's subquery exposes under their names.
func spreadValues(e *plan.Embed) []spreadValue {
	row := sqltext.Ident(e.Plan.Alias + "_r")
	column := func(name string) sqltext.SQL { return sqltext.Fmt("%s.%s", row, sqltext.Ident(name)) }
	var out []spreadValue
	var walk func(lvl *plan.Read, top bool)
	walk = func(lvl *plan.Read, top bool) {
		for _, ci := range lvl.Output {
			switch {
			case ci.Field != nil && ci.Field.Ref.Star && top:
				out = append(out, spreadValue{expr: sqltext.Fmt("%s.*", row), star: true})
			case ci.Field != nil && ci.Field.Ref.Star:
				for _, col := range lvl.Relation.Columns {
					out = append(out, spreadValue{expr: column(col.Name), name: col.Name})
				}
			case ci.Field != nil && ci.Field.Aggregate != "":
				v := spreadValue{name: ci.Field.Name, agg: ci.Field}
				if ci.Field.Ref.Column != "" || ci.Field.Ref.Computed != nil {
					v.expr = column(ci.Field.Name)
				}
				out = append(out, v)
			case ci.Field != nil:
				out = append(out, spreadValue{expr: column(ci.Field.Name), name: ci.Field.Name})
			case ci.Embed.Spread && ci.Embed.ToOne():
				walk(ci.Embed.Plan, false)
			case ci.Embed.Spread:
				for _, n := range ci.Embed.Plan.Exposed() {
					out = append(out, spreadValue{expr: column(n), name: n})
				}
			case ci.Embed.Shown():
				out = append(out, spreadValue{expr: column(ci.Embed.Name), name: ci.Embed.Name})
			}
		}
	}
	walk(e.Plan, true)
	return out
}

// spreadSelect renders a to-one spread's values in its parent's select
// list. apply says whether the parent computes the spread's aggregates
// (it is not itself a to-one spread's level) or passes their values up.
func (g *gen) spreadSelect(e *plan.Embed, apply bool) []sqltext.SQL {
	var out []sqltext.SQL
	for _, v := range spreadValues(e) {
		switch {
		case v.star:
			out = append(out, v.expr)
		case v.agg != nil && apply:
			out = append(out, sqltext.Fmt("%s as %s", aggregate(v.agg, v.expr), sqltext.Ident(v.name)))
		case v.agg != nil && v.expr.IsEmpty():
			// count() passes nothing up: it counts the rows where it lands.
		default:
			out = append(out, sqltext.Fmt("%s as %s", v.expr, sqltext.Ident(v.name)))
		}
	}
	return out
}
