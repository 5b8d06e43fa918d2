package sqlgen

import (
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// The room a read statement's builder is given, worked out from the plan
// so that the builder allocates once and not much more than the
// statement needs: a flat guess (640 bytes) gave a one-row read twice
// the room its 440 bytes needed. Each part is counted from the names it
// quotes plus a little more than the words around them; shapes whose
// text is not written here part by part (JSON paths, casts, aggregates,
// computed columns, trees) are given generous room. TestStatementSize
// holds the estimate above every golden statement's length and within a
// margin of it.

// statementFrame is the text around the root level, the page_total
// column and the body: "with pgrst_source as (" ... ") select " total ...
// " from pgrst_source _pgrst_t".
const statementFrame = len("with pgrst_source as (") + len(") select ") + len("null::bigint") +
	len(responseColumns) + len(" from pgrst_source _pgrst_t")

// Room for the parts of a level: its select, from and as; a field's
// quotes, dot, " as " and ", " (an expression's more); a JSON path's
// step; a condition's operator, placeholder and " and " (a negated one's
// "not ()"); an order term's direction, nulls and ", "; a limit and an
// offset; an embed's join around its level, each of its join conditions,
// its junction or computed relationship's call, each column a to-many
// spread aggregates; a text search's functions; the count's subquery.
const (
	levelFrameRoom     = 24
	fieldRoom          = 12
	exprFieldRoom      = 32
	jsonStepRoom       = 12
	conditionRoom      = 24
	orderTermRoom      = 24
	rangeRoom          = 24
	embedJoinRoom      = 96
	embedConditionRoom = 48
	junctionRoom       = 160
	functionCallRoom   = 32
	spreadColumnRoom   = 72
	textSearchRoom     = 64
	countFrameRoom     = 80
)

// statementSize is room for the statement read renders for p, before
// the CTE list with; body is the body column.
func (g *gen) statementSize(p *plan.Read, opts ReadOptions, body sqltext.SQL) int {
	n := statementFrame + len(pageTotalColumn) + body.Len() + g.levelSize(p, true, false)
	if opts.RecordPageTotal {
		n += len(recordedPageTotalColumn) - len(pageTotalColumn)
	}
	if streamShapeOf(opts) != NotStreamed {
		n += streamFrameRoom
	}
	if opts.Count == "exact" || opts.Count == "estimated" {
		// The count's subquery repeats the level but for its fields and
		// the embeds that do not filter it.
		n += countFrameRoom + g.levelSize(p, true, true)
	}
	return n
}

// levelSize is room for the query of one level and its embeds' joins;
// for count, the count's: without fields (unless grouped), with inner
// embeds only.
func (g *gen) levelSize(r *plan.Read, root, count bool) int {
	alias := len(r.Alias) + 2
	n := levelFrameRoom + alias
	if root && !g.rootFrom.IsEmpty() {
		n += g.rootFrom.Len()
	} else {
		n += len(r.Relation.Schema) + len(r.Relation.Name) + 5
	}
	for _, it := range r.Output {
		if f := it.Field; f != nil && (!count || r.GroupBy) {
			n += fieldRoom + alias + len(f.Ref.Column) + len(f.Name)
			if !plainField(f) {
				n += exprFieldRoom + len(f.Ref.JSONPath)*jsonStepRoom + len(f.Aggregate)
			}
		}
	}
	for _, e := range r.Embeds {
		if !count || e.Inner {
			n += embedSize(e, alias) + g.levelSize(e.Plan, false, count)
		}
	}
	for _, c := range r.Where {
		n += conditionSize(c, alias)
	}
	for _, t := range r.Order {
		n += orderTermRoom + alias + len(t.Ref.Column) + len(t.Ref.JSONPath)*jsonStepRoom
		if t.Embed != nil {
			n += embedConditionRoom + len(t.Embed.Plan.Alias)
		}
	}
	if r.Range.Offset != 0 || r.Range.Limit != nil {
		n += rangeRoom
	}
	return n
}

// embedSize is room for an embed's column in its parent, whose quoted
// alias takes parent bytes, and for its join, but for its own level.
func embedSize(e *plan.Embed, parent int) int {
	child := len(e.Plan.Alias) + 2
	n := embedJoinRoom + 4*child + len(e.Name)
	if rel := e.Relationship; rel != nil {
		for _, cols := range rel.Columns {
			n += embedConditionRoom + parent + child + len(cols[0]) + len(cols[1])
		}
		if rel.Junction != nil {
			n += junctionRoom
		}
		if rel.Function != nil {
			n += len(rel.Function.Schema) + len(rel.Function.Name) + functionCallRoom
		}
	}
	if e.ToManySpread() {
		// Each column of the spread level is aggregated into an array of
		// its own, a star's as much as any other.
		for _, it := range e.Plan.Output {
			if f := it.Field; f != nil && f.Ref.Star {
				for _, col := range e.Plan.Relation.Columns {
					n += spreadColumnRoom + child + 2*len(col.Name)
				}
			} else if f != nil {
				n += spreadColumnRoom + child + 2*len(f.Name)
			}
		}
	}
	return n
}

// conditionSize is room for a condition of a level whose quoted alias
// takes alias bytes.
func conditionSize(c plan.Condition, alias int) int {
	n := conditionRoom
	switch {
	case c.Filter != nil:
		n += alias + len(c.Filter.Ref.Column) + len(c.Filter.Ref.JSONPath)*jsonStepRoom
		if c.Filter.Ref.Computed != nil || c.Filter.Quantifier != "" {
			n += exprFieldRoom
		}
		if c.Filter.Language != "" || c.Filter.ToTsVector || ftsRoom[c.Filter.Op] {
			n += textSearchRoom
		}
	case c.EmbedNull != nil:
		n += embedConditionRoom + len(c.EmbedNull.Plan.Alias)
	}
	for _, child := range c.Children {
		n += conditionSize(child, alias)
	}
	return n
}

// ftsRoom are the text search operators, whose text is longer.
var ftsRoom = map[string]bool{"fts": true, "plfts": true, "phfts": true, "wfts": true}
