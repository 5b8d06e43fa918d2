package sqlgen

import (
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// The clauses of a level written straight into the statement's builder.
// The functions that return a clause as a value (query, where, filter,
// refExpr...) make one string per quoted name and per clause; these
// write the same text in the same order, binding parameters in the same
// order, into one buffer. Shapes they do not handle themselves (JSON
// paths, computed columns, casts, aggregates, spreads, trees) they hand
// to the value-returning functions, so each shape has one definition.
// TestGolden holds every shape to its exact text.

// levelSource is where a level's rows come from: the root's relation
// (or rootFrom), an embed's relationship to its parent's row, or a FROM
// item and conditions rendered by the caller.
type levelSource struct {
	root bool
	// embed, with parent, is the embed whose level this is.
	parent *plan.Read
	embed  *plan.Embed
	// from and cond are rendered already (query's arguments).
	from sqltext.SQL
	cond []sqltext.SQL
}

// writeQuery writes one level as query renders it.
func (g *gen) writeQuery(b *sqltext.Builder, r *plan.Read, src levelSource) {
	b.Const("select ")
	g.writeSelectList(b, r)
	b.Const(" from ")
	switch {
	case src.embed != nil:
		g.writeRelationshipFrom(b, src.parent, src.embed)
	case src.from.IsEmpty():
		g.writeFromItem(b, r, src.root)
	default:
		b.Write(src.from)
	}
	for _, e := range r.Embeds {
		g.writeLateral(b, r, e)
	}
	if src.embed != nil {
		g.writeEmbedConditions(b, src.parent, src.embed)
	} else {
		g.writeConditions(b, r, src.cond)
	}
	b.Write(g.groupBy(r))
	g.writeOrderBy(b, r)
	if r.Range.Limit != nil {
		b.Const(" limit ")
		b.Write(g.paramInt(*r.Range.Limit))
	}
	if r.Range.Offset != 0 {
		b.Const(" offset ")
		b.Write(g.paramInt(r.Range.Offset))
	}
}

// writeLateral writes lateral's text.
func (g *gen) writeLateral(b *sqltext.Builder, parent *plan.Read, e *plan.Embed) {
	if e.ToManySpread() {
		b.Write(g.lateral(parent, e))
		return
	}
	c := e.Plan
	if e.Inner {
		b.Const(" inner join lateral ")
	} else {
		b.Const(" left join lateral ")
	}
	if e.Spread && e.ToOne() {
		g.markHoisted(parent, c)
	}
	src := levelSource{parent: parent, embed: e}
	if e.ToOne() {
		b.Const("(")
		g.writeQuery(b, c, src)
		b.Const(") as ")
		b.Ident(c.Alias + "_r")
		b.Const(" on true")
		return
	}
	b.Const("(select pg_catalog.json_agg(")
	b.Ident(c.Alias + "_r")
	b.Const(") as body from (")
	g.writeQuery(b, c, src)
	b.Const(") as ")
	b.Ident(c.Alias + "_r")
	b.Const(") as ")
	b.Ident(c.Alias + "_agg")
	if e.Inner {
		b.Const(" on ")
		b.Ident(c.Alias + "_agg")
		b.Const(".body is not null")
	} else {
		b.Const(" on true")
	}
}

// writeRelationshipFrom writes the FROM item relationshipSource returns.
func (g *gen) writeRelationshipFrom(b *sqltext.Builder, parent *plan.Read, e *plan.Embed) {
	c, rs := e.Plan, e.Relationship
	switch {
	case rs.Function != nil:
		b.Qualified(rs.Function.Schema, rs.Function.Name)
		b.Const("(")
		b.Write(g.rowArg(parent.Alias))
		b.Const(") as ")
		b.Ident(c.Alias)
	case rs.Junction != nil:
		j := rs.Junction
		g.writeFromItem(b, c, false)
		b.Const(" join ")
		b.Qualified(j.Table.Schema, j.Table.Name)
		b.Const(" as ")
		b.Ident(c.Alias + "_j")
		b.Const(" on ")
		for i, pair := range j.TargetColumns {
			if i > 0 {
				b.Const(" and ")
			}
			b.Ident(c.Alias + "_j")
			b.Const(".")
			b.Ident(pair[1])
			b.Const(" = ")
			b.Ident(c.Alias)
			b.Const(".")
			b.Ident(pair[0])
		}
	default:
		g.writeFromItem(b, c, false)
	}
}

// writeEmbedConditions writes where's text for an embedded level: the
// conditions relationshipSource returns, which tie it to its parent's
// row, then the level's own.
func (g *gen) writeEmbedConditions(b *sqltext.Builder, parent *plan.Read, e *plan.Embed) {
	c, rs := e.Plan, e.Relationship
	// The pairs of (this level's alias, column) = (parent's alias, column).
	var pairs [][2]string
	alias := c.Alias
	switch {
	case rs.Function != nil:
	case rs.Junction != nil:
		pairs, alias = rs.Junction.SourceColumns, c.Alias+"_j"
	default:
		pairs = rs.Columns
	}
	if len(pairs)+len(c.Where) == 0 {
		return
	}
	b.Const(" where ")
	for i, pair := range pairs {
		if i > 0 {
			b.Const(" and ")
		}
		b.Ident(alias)
		b.Const(".")
		b.Ident(pair[1])
		b.Const(" = ")
		b.Ident(parent.Alias)
		b.Const(".")
		b.Ident(pair[0])
	}
	g.writeLevelConditions(b, c, len(pairs))
}

// writeFromItem writes fromItem's text.
func (g *gen) writeFromItem(b *sqltext.Builder, r *plan.Read, root bool) {
	if root && !g.rootFrom.IsEmpty() {
		b.Write(g.rootFrom)
	} else {
		b.Qualified(r.Relation.Schema, r.Relation.Name)
	}
	b.Const(" as ")
	b.Ident(r.Alias)
}

// writeSelectList writes a level's select items joined by ", ". With
// nothing selected (an embed name() or one whose embeds select nothing)
// it writes nothing: each row is still one (empty) row, which filters.
func (g *gen) writeSelectList(b *sqltext.Builder, r *plan.Read) {
	n := 0
	item := func(s sqltext.SQL) {
		if n > 0 {
			b.Const(", ")
		}
		b.Write(s)
		n++
	}
	for _, it := range r.Output {
		if f := it.Field; f != nil && plainField(f) {
			if n > 0 {
				b.Const(", ")
			}
			n++
			b.Ident(r.Alias)
			if f.Ref.Star {
				b.Const(".*")
				continue
			}
			b.Const(".")
			b.Ident(f.Ref.Column)
			b.Const(" as ")
			b.Ident(f.Name)
			continue
		}
		if e := it.Embed; e != nil && !e.Spread && e.Shown() {
			if n > 0 {
				b.Const(", ")
			}
			n++
			g.writeEmbedBody(b, r, e)
			b.Const(" as ")
			b.Ident(e.Name)
			continue
		}
		for _, s := range g.selectItems(r, it) {
			item(s)
		}
	}
}

// writeEmbedBody writes embedBody's text.
func (g *gen) writeEmbedBody(b *sqltext.Builder, parent *plan.Read, e *plan.Embed) {
	if e.ToOne() {
		b.Const("pg_catalog.row_to_json(")
		b.Ident(e.Plan.Alias + "_r")
		b.Const(".*)")
	} else {
		b.Const("coalesce(")
		b.Ident(e.Plan.Alias + "_agg")
		b.Const(".body, '[]')")
	}
	if g.jsonbEmbeds(parent) {
		b.Const("::jsonb")
	}
}

// plainField says whether f is the whole row or a column as it is: no
// JSON path, computed column, representation, cast or aggregate.
func plainField(f *plan.Field) bool {
	return f.Aggregate == "" && f.Format == nil && f.Cast.IsZero() && f.Ref.Computed == nil &&
		len(f.Ref.JSONPath) == 0 && (f.Ref.Star || f.Ref.Column != "")
}

// writeRef writes refExpr's text.
func (g *gen) writeRef(b *sqltext.Builder, alias string, ref plan.ColumnRef) {
	if ref.Computed != nil || len(ref.JSONPath) > 0 {
		b.Write(g.refExpr(alias, ref))
		return
	}
	b.Ident(alias)
	b.Const(".")
	b.Ident(ref.Column)
}

// writeConditions writes where's text.
func (g *gen) writeConditions(b *sqltext.Builder, r *plan.Read, extra []sqltext.SQL) {
	if len(extra)+len(r.Where) == 0 {
		return
	}
	b.Const(" where ")
	for i, c := range extra {
		if i > 0 {
			b.Const(" and ")
		}
		b.Write(c)
	}
	g.writeLevelConditions(b, r, len(extra))
}

// writeLevelConditions writes r's own conditions joined by " and ", after
// the written ones before them in the same where clause.
func (g *gen) writeLevelConditions(b *sqltext.Builder, r *plan.Read, written int) {
	for i, c := range r.Where {
		if i+written > 0 {
			b.Const(" and ")
		}
		g.writeCondition(b, r, c)
	}
}

// writeCondition writes condition's text.
func (g *gen) writeCondition(b *sqltext.Builder, r *plan.Read, c plan.Condition) {
	if c.Filter == nil {
		b.Write(g.condition(r, c))
		return
	}
	if c.Negated {
		b.Const("not (")
		g.writeFilter(b, r, c.Filter)
		b.Const(")")
		return
	}
	g.writeFilter(b, r, c.Filter)
}

// writeFilter writes filter's text.
func (g *gen) writeFilter(b *sqltext.Builder, r *plan.Read, f *plan.Filter) {
	op, binary := binaryOps[f.Op]
	if !binary || f.Quantifier != "" {
		b.Write(g.filter(r, f))
		return
	}
	g.writeRef(b, r.Alias, f.Ref)
	b.Const(" ")
	b.Write(op)
	b.Const(" ")
	b.Write(g.parsedValue(f, f.Value))
}

// writeOrderBy writes orderBy's text.
func (g *gen) writeOrderBy(b *sqltext.Builder, r *plan.Read) {
	for i, t := range r.Order {
		if i == 0 {
			b.Const(" order by ")
		} else {
			b.Const(", ")
		}
		if t.Embed != nil {
			b.Write(g.orderTerm(r, t))
			continue
		}
		g.writeRef(b, r.Alias, t.Ref)
		switch t.Direction {
		case "asc":
			b.Const(" asc")
		case "desc":
			b.Const(" desc")
		}
		switch t.Nulls {
		case "first":
			b.Const(" nulls first")
		case "last":
			b.Const(" nulls last")
		}
	}
}
