package sqlgen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schema"
)

// ReadOptions shape the statement around a read plan.
type ReadOptions struct {
	Representation apirequest.Representation
	// Count is "exact", "planned", "estimated" or "".
	Count string
	// MaxRows bounds the exact part of an estimated count.
	MaxRows int64
	// NoBody skips building the body (HEAD).
	NoBody bool
}

// Read renders the main statement of a read and, for a planned count or
// an estimated one bounded by MaxRows, the EXPLAIN statement whose row
// estimate is the total.
func Read(p *plan.Read, opts ReadOptions) (main Statement, explain *Statement) {
	g := &gen{}
	return g.read(p, opts, "")
}

// read renders the statement around p; with, when set, is a CTE list
// rendered before (a mutation or a function call whose rows p reads
// through rootFrom).
func (g *gen) read(p *plan.Read, opts ReadOptions, with string) (main Statement, explain *Statement) {
	source := g.query(p, g.fromItem(p, true), nil)
	total := "null::bigint"
	if opts.Count == "exact" || opts.Count == "estimated" {
		counted := g.countQuery(p)
		if opts.Count == "estimated" && opts.MaxRows > 0 {
			// Exact up to db_max_rows, the planner's estimate beyond it:
			// count one row past the bound, and the executor decides.
			counted += " limit " + g.param(strconv.FormatInt(opts.MaxRows+1, 10))
		}
		total = "(select pg_catalog.count(*) from (" + counted + ") _pgrst_c)"
	}
	if opts.Count == "planned" || (opts.Count == "estimated" && opts.MaxRows > 0) {
		eg := &gen{}
		explain = &Statement{SQL: "explain (format json) " + eg.countQuery(p), Args: eg.args}
	}
	body := bodyExpr(opts)
	sql := "with " + with + "pgrst_source as (" + source + ") select " + fmt.Sprintf(resultColumns, total, body) +
		g.extraColumns + " from pgrst_source _pgrst_t"
	return Statement{SQL: sql, Args: g.args}, explain
}

// bodyExpr aggregates the rows into the negotiated representation.
func bodyExpr(opts ReadOptions) string {
	if opts.NoBody {
		return "null::text"
	}
	row := "_pgrst_t"
	if opts.Representation.StripNulls {
		row = "pg_catalog.json_strip_nulls(pg_catalog.row_to_json(_pgrst_t))"
	}
	switch opts.Representation.Media {
	case apirequest.MediaSingleObject:
		return "coalesce((pg_catalog.json_agg(" + row + ")->0)::text, 'null')"
	case apirequest.MediaCSV:
		// A header from the first row's keys, then each row's record text
		// without its parentheses, as PostgREST renders CSV.
		return "(select coalesce(pg_catalog.string_agg(a.k, ','), '') from (select pg_catalog.json_object_keys(r) as k " +
			"from (select pg_catalog.row_to_json(hh) as r from pgrst_source as hh limit 1) s) a) || pg_catalog.chr(10) || " +
			"coalesce(pg_catalog.string_agg(pg_catalog.substring(_pgrst_t::text, 2, pg_catalog.length(_pgrst_t::text) - 2), pg_catalog.chr(10)), '')"
	}
	return "coalesce(pg_catalog.json_agg(" + row + "), '[]')::text"
}

// gen renders SQL, collecting bind arguments in order.
type gen struct {
	args [][]byte
	// keys holds the placeholder of each JSON path key bound so far.
	keys map[jsonKey]string
	// rootFrom replaces the root relation in FROM (a CTE of written
	// rows, a function call); rootRowType then casts the root's row for
	// computed columns, which take the relation's row type.
	rootFrom    string
	rootAlias   string
	rootRowType string
	// extraColumns are appended to the standard result columns.
	extraColumns string
}

// param binds v and returns its placeholder.
func (g *gen) param(v string) string {
	return g.paramBytes([]byte(v))
}

// paramBytes binds v as it is, without a copy (a request body), and
// returns its placeholder.
func (g *gen) paramBytes(v []byte) string {
	g.args = append(g.args, v)
	return "$" + strconv.Itoa(len(g.args))
}

// jsonKey is a JSON path step's key as bound: a text key or an array index.
type jsonKey struct {
	key   string
	index bool
}

// jsonKeyParam binds a JSON path key once per statement and returns its
// cast placeholder. A path then renders as the same expression wherever
// it appears, as GROUP BY and ORDER BY need to match a selected
// expression ($1 and $2 holding the same key are different expressions).
func (g *gen) jsonKeyParam(step apirequest.JSONStep) string {
	k := jsonKey{step.Key, step.IsIndex}
	if p, ok := g.keys[k]; ok {
		return p
	}
	p := g.param(step.Key)
	if step.IsIndex {
		p += "::integer"
	} else {
		p += "::text"
	}
	if g.keys == nil {
		g.keys = map[jsonKey]string{}
	}
	g.keys[k] = p
	return p
}

// query renders one level whose FROM item is from: select list, the
// lateral join of each embed, where (cond, which ties an embedded level
// to its parent, and the level's conditions), group, order, limit.
func (g *gen) query(r *plan.Read, from string, cond []string) string {
	var b strings.Builder
	b.WriteString("select ")
	b.WriteString(strings.Join(g.selectList(r), ", "))
	b.WriteString(" from " + from)
	for _, e := range r.Embeds {
		b.WriteString(g.lateral(r, e))
	}
	b.WriteString(g.where(r, cond))
	b.WriteString(g.groupBy(r))
	b.WriteString(g.orderBy(r))
	if r.Range.Limit != nil {
		b.WriteString(" limit " + g.param(strconv.FormatInt(*r.Range.Limit, 10)))
	}
	if r.Range.Offset != 0 {
		b.WriteString(" offset " + g.param(strconv.FormatInt(r.Range.Offset, 10)))
	}
	return b.String()
}

// groupBy renders a level's GROUP BY clause, "" when it has none.
func (g *gen) groupBy(r *plan.Read) string {
	if !r.GroupBy {
		return ""
	}
	keys := g.groupKeys(r)
	if len(keys) == 0 {
		return ""
	}
	return " group by " + strings.Join(keys, ", ")
}

// orderBy renders a level's ORDER BY clause, "" when it has none.
func (g *gen) orderBy(r *plan.Read) string {
	if len(r.Order) == 0 {
		return ""
	}
	terms := make([]string, len(r.Order))
	for i, t := range r.Order {
		terms[i] = g.orderTerm(r, t)
	}
	return " order by " + strings.Join(terms, ", ")
}

// countQuery is the root without order, limit, output or the embeds that
// do not change which rows there are.
func (g *gen) countQuery(r *plan.Read) string {
	needed := map[*plan.Embed]bool{}
	for _, e := range r.Embeds {
		needed[e] = e.Inner
	}
	for _, c := range r.Where {
		markEmbedNulls(c, needed)
	}
	if r.GroupBy {
		// The count counts groups, and embeds are grouping keys.
		for _, it := range r.Output {
			if it.Embed != nil && shown(it.Embed) {
				needed[it.Embed] = true
			}
		}
	}
	var b strings.Builder
	b.WriteString("select 1 from " + g.fromItem(r, true))
	for _, e := range r.Embeds {
		if needed[e] {
			b.WriteString(g.lateral(r, e))
		}
	}
	b.WriteString(g.where(r, nil))
	b.WriteString(g.groupBy(r))
	return b.String()
}

func markEmbedNulls(c plan.Condition, needed map[*plan.Embed]bool) {
	if c.EmbedNull != nil {
		needed[c.EmbedNull] = true
	}
	for _, ch := range c.Children {
		markEmbedNulls(ch, needed)
	}
}

// fromItem is a level's relation with its alias; the root's may be
// replaced by rootFrom.
func (g *gen) fromItem(r *plan.Read, root bool) string {
	if root && g.rootFrom != "" {
		return g.rootFrom + " as " + QuoteIdent(r.Alias)
	}
	return QualifiedName(r.Relation.Schema, r.Relation.Name) + " as " + QuoteIdent(r.Alias)
}

// lateral renders the join of one embed. Every embed yields one column,
// "body": the JSON array (to-many) or object (to-one) of the embedded
// rows. Spread embeds also expose their fields to the parent.
func (g *gen) lateral(parent *plan.Read, e *plan.Embed) string {
	c := e.Plan
	joinKind := " left join lateral "
	if e.Inner {
		joinKind = " inner join lateral "
	}
	from, cond := g.relationshipSource(parent, e)
	inner := g.query(c, from, cond)
	if e.ToOne() {
		return joinKind + "(" + inner + ") as " + QuoteIdent(c.Alias+"_r") + " on true"
	}
	on := "true"
	if e.Inner {
		on = QuoteIdent(c.Alias+"_agg") + ".body is not null"
	}
	return joinKind + "(select pg_catalog.json_agg(" + QuoteIdent(c.Alias+"_r") + ") as body from (" + inner + ") as " +
		QuoteIdent(c.Alias+"_r") + ") as " + QuoteIdent(c.Alias+"_agg") + " on " + on
}

// relationshipSource is the embedded relation's FROM item and the
// conditions joining it to the parent row.
func (g *gen) relationshipSource(parent *plan.Read, e *plan.Embed) (string, []string) {
	c := e.Plan
	rs := e.Relationship
	target := g.fromItem(c, false)
	p, ch := QuoteIdent(parent.Alias), QuoteIdent(c.Alias)
	var cond []string
	switch {
	case rs.Function != nil:
		fn := QualifiedName(rs.Function.Schema, rs.Function.Name)
		return fn + "(" + p + ") as " + ch, nil
	case rs.Junction != nil:
		j := rs.Junction
		ja := QuoteIdent(c.Alias + "_j")
		var on []string
		for _, pair := range j.TargetColumns {
			on = append(on, ja+"."+QuoteIdent(pair[1])+" = "+ch+"."+QuoteIdent(pair[0]))
		}
		for _, pair := range j.SourceColumns {
			cond = append(cond, ja+"."+QuoteIdent(pair[1])+" = "+p+"."+QuoteIdent(pair[0]))
		}
		return target + " join " + QualifiedName(j.Table.Schema, j.Table.Name) + " as " + ja + " on " + strings.Join(on, " and "), cond
	default:
		for _, pair := range rs.Columns {
			cond = append(cond, ch+"."+QuoteIdent(pair[1])+" = "+p+"."+QuoteIdent(pair[0]))
		}
		return target, cond
	}
}

// selectList renders the output columns of a level.
func (g *gen) selectList(r *plan.Read) []string {
	var out []string
	for _, it := range r.Output {
		if it.Field != nil {
			out = append(out, g.fieldExpr(r, it.Field))
			continue
		}
		e := it.Embed
		switch {
		case e.Spread:
			exprs, names := spreadItems(e)
			for i, x := range exprs {
				if names[i] != "" {
					x += " as " + QuoteIdent(names[i])
				}
				out = append(out, x)
			}
		case shown(e):
			out = append(out, g.embedBody(r, e)+" as "+QuoteIdent(e.Name))
		}
	}
	if len(out) == 0 {
		// select= with nothing selected still yields one (empty) object
		// per row.
		return []string{""}
	}
	return out
}

// shown says whether an embed is a key of its parent's rows. One that
// selects nothing (name()) only filters them, with !inner or is.null, and
// PostgREST leaves it out of the output.
func shown(e *plan.Embed) bool { return len(e.Plan.Output) > 0 }

// spreadItems are the values a spread embed adds to its parent's row, as
// expressions of its lateral subquery, and their names: "" for a star,
// whose columns keep theirs. A spread nested in it adds what its own
// items add, which the subquery exposes under their names.
func spreadItems(e *plan.Embed) (exprs, names []string) {
	c := e.Plan
	row := QuoteIdent(c.Alias + "_r")
	for _, ci := range c.Output {
		switch {
		case ci.Field != nil && ci.Field.Ref.Star:
			exprs, names = append(exprs, row+".*"), append(names, "")
		case ci.Field != nil:
			exprs, names = append(exprs, row+"."+QuoteIdent(ci.Field.Name)), append(names, ci.Field.Name)
		case ci.Embed.Spread:
			for _, n := range exposed(ci.Embed.Plan) {
				exprs, names = append(exprs, row+"."+QuoteIdent(n)), append(names, n)
			}
		case shown(ci.Embed):
			exprs, names = append(exprs, row+"."+QuoteIdent(ci.Embed.Name)), append(names, ci.Embed.Name)
		}
	}
	return exprs, names
}

// exposed lists the columns a level's query returns, by name: a star
// returns the relation's columns.
func exposed(c *plan.Read) []string {
	var names []string
	for _, it := range c.Output {
		switch {
		case it.Field != nil && it.Field.Ref.Star:
			for _, col := range c.Relation.Columns {
				names = append(names, col.Name)
			}
		case it.Field != nil:
			names = append(names, it.Field.Name)
		case it.Embed.Spread:
			names = append(names, exposed(it.Embed.Plan)...)
		case shown(it.Embed):
			names = append(names, it.Embed.Name)
		}
	}
	return names
}

// embedBody is the JSON value of an embed in its parent's row. When the
// parent groups rows (aggregates), bodies become jsonb, which can be
// grouped.
func (g *gen) embedBody(parent *plan.Read, e *plan.Embed) string {
	cast := ""
	if parent.GroupBy {
		cast = "::jsonb"
	}
	c := e.Plan
	if e.ToOne() {
		return "pg_catalog.row_to_json(" + QuoteIdent(c.Alias+"_r") + ".*)" + cast
	}
	return "coalesce(" + QuoteIdent(c.Alias+"_agg") + ".body, '[]')" + cast
}

// groupKeys are the non-aggregate outputs of a level.
func (g *gen) groupKeys(r *plan.Read) []string {
	var keys []string
	for _, it := range r.Output {
		switch {
		case it.Embed != nil && it.Embed.Spread:
			exprs, names := spreadItems(it.Embed)
			for i, x := range exprs {
				if names[i] == "" {
					keys = append(keys, columnsOf(it.Embed.Plan.Relation, it.Embed.Plan.Alias+"_r")...)
				} else {
					keys = append(keys, x)
				}
			}
		case it.Embed != nil && shown(it.Embed):
			keys = append(keys, g.embedBody(r, it.Embed))
		case it.Field != nil && it.Field.Aggregate == "" && !it.Field.Ref.Star:
			keys = append(keys, g.valueExpr(r, it.Field))
		case it.Field != nil && it.Field.Ref.Star:
			keys = append(keys, columnsOf(r.Relation, r.Alias)...)
		}
	}
	return keys
}

// columnsOf lists rel's columns as columns of alias: a star as grouping
// keys, since PostgreSQL takes "alias".* in GROUP BY for one row value,
// which groups but does not let the select list name the columns.
func columnsOf(rel *schema.Relation, alias string) []string {
	cols := make([]string, len(rel.Columns))
	for i, col := range rel.Columns {
		cols[i] = QuoteIdent(alias) + "." + QuoteIdent(col.Name)
	}
	return cols
}

// fieldExpr renders a selected field with its output name.
func (g *gen) fieldExpr(r *plan.Read, f *plan.Field) string {
	if f.Ref.Star {
		return QuoteIdent(r.Alias) + ".*"
	}
	return g.valueExpr(r, f) + " as " + QuoteIdent(f.Name)
}

// valueExpr is a field's value: the reference, cast, aggregated.
func (g *gen) valueExpr(r *plan.Read, f *plan.Field) string {
	v := ""
	if f.Ref.Column != "" || f.Ref.Computed != nil {
		v = g.refExpr(r.Alias, f.Ref)
		if f.Cast != "" {
			v = "(" + v + ")::" + f.Cast
		}
	}
	if f.Aggregate == "" {
		return v
	}
	if v == "" {
		v = "*"
	}
	v = "pg_catalog." + f.Aggregate + "(" + v + ")"
	if f.AggregateCast != "" {
		v = "(" + v + ")::" + f.AggregateCast
	}
	return v
}

// refExpr renders a column, computed column or JSON path of alias's row.
// JSON keys are values and travel as parameters.
func (g *gen) refExpr(alias string, ref plan.ColumnRef) string {
	var v string
	if ref.Computed != nil {
		row := QuoteIdent(alias)
		if g.rootRowType != "" && alias == g.rootAlias {
			row += "::" + g.rootRowType
		}
		v = QualifiedName(ref.Computed.Schema, ref.Computed.Name) + "(" + row + ")"
	} else {
		v = QuoteIdent(alias) + "." + QuoteIdent(ref.Column)
	}
	for _, step := range ref.JSONPath {
		arrow := "->"
		if step.Arrow == "->>" {
			arrow = "->>"
		}
		v += arrow + g.jsonKeyParam(step)
	}
	return v
}

// orderTerm renders one ORDER BY key.
func (g *gen) orderTerm(r *plan.Read, t plan.OrderTerm) string {
	var v string
	if t.Embed != nil {
		v = g.refExpr(t.Embed.Plan.Alias+"_r", t.Ref)
	} else {
		v = g.refExpr(r.Alias, t.Ref)
	}
	switch t.Direction {
	case "asc":
		v += " asc"
	case "desc":
		v += " desc"
	}
	switch t.Nulls {
	case "first":
		v += " nulls first"
	case "last":
		v += " nulls last"
	}
	return v
}

// where renders the conditions of a level plus extra ones.
func (g *gen) where(r *plan.Read, extra []string) string {
	conds := append([]string(nil), extra...)
	for _, c := range r.Where {
		conds = append(conds, g.condition(r, c))
	}
	if len(conds) == 0 {
		return ""
	}
	return " where " + strings.Join(conds, " and ")
}
