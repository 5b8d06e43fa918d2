package sqlgen

import (
	"strconv"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
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
	// RecordPageTotal leaves page_total in the transaction-local setting
	// pgrst.page_total, where a guard statement checks it, so that a
	// read-write transaction can roll back a failed check in SQL.
	RecordPageTotal bool
	// Stream asks for a statement that returns the body row by row
	// (see RowStream) when the representation is an array of rows.
	Stream bool
}

// Read renders the main statement of a read and, for a planned or an
// estimated count, the EXPLAIN statement whose row estimate is (or may
// be) the total.
func Read(p *plan.Read, opts ReadOptions) (main Statement, explain *Statement) {
	g := &gen{}
	return g.read(p, opts, sqltext.SQL{})
}

// read renders the statement around p; with, when set, is a CTE list
// rendered before (a mutation or a function call whose rows p reads
// through rootFrom).
func (g *gen) read(p *plan.Read, opts ReadOptions, with sqltext.SQL) (main Statement, explain *Statement) {
	body := bodyExpr(opts)
	var b sqltext.Builder
	b.Grow(g.statementSize(p, opts, body) + with.Len())
	b.Const("with ")
	b.Write(with)
	return g.readInto(&b, p, opts, body)
}

// readInto is read after the CTE list, which b holds ("with " and the
// list, or "with " alone), so that a write or a call renders its CTEs
// into the statement's own builder rather than into one of their own;
// body is bodyExpr(opts).
func (g *gen) readInto(b *sqltext.Builder, p *plan.Read, opts ReadOptions, body sqltext.SQL) (main Statement, explain *Statement) {
	g.textEmbeds = opts.Representation.Media == apirequest.MediaHandler || opts.Representation.Media == apirequest.MediaCSV
	shape := streamShapeOf(opts)
	if shape != NotStreamed && g.extraColumns.IsEmpty() {
		// Read twice (writeStreamed): inlined rather than stored.
		b.Const("pgrst_source as not materialized (")
	} else {
		b.Const("pgrst_source as (")
	}
	g.writeQuery(b, p, levelSource{root: true})
	b.Const(")")
	total := sqltext.Const("null::bigint")
	if opts.Count == "exact" || opts.Count == "estimated" {
		counted := g.countQuery(p)
		if opts.Count == "estimated" && opts.MaxRows > 0 {
			// Exact up to db_max_rows, the planner's estimate beyond it:
			// count one row past the bound, and the executor decides.
			counted = sqltext.Fmt("%s limit %s", counted, g.param(strconv.FormatInt(opts.MaxRows+1, 10)))
		}
		total = sqltext.Fmt("(select pg_catalog.count(*) from (%s) _pgrst_c)", counted)
	}
	if opts.Count == "planned" || opts.Count == "estimated" {
		eg := &gen{}
		explain = &Statement{SQL: sqltext.Fmt("explain (format json) %s", eg.countQuery(p)), Args: eg.args}
	}
	if shape != NotStreamed && g.extraColumns.IsEmpty() {
		writeStreamed(b, opts, total)
		return Statement{SQL: b.SQL(), Args: g.args, Stream: shape}, explain
	}
	b.Const(" select ")
	writeColumns(b, opts.RecordPageTotal, total, body)
	b.Write(g.extraColumns)
	b.Const(" from pgrst_source _pgrst_t")
	return Statement{SQL: b.SQL(), Args: g.args, RecordsPageTotal: opts.RecordPageTotal}, explain
}

// bodyExpr aggregates the rows into the negotiated representation.
func bodyExpr(opts ReadOptions) sqltext.SQL {
	if opts.NoBody {
		return sqltext.Const("null::text")
	}
	row := sqltext.Const("_pgrst_t")
	if opts.Representation.StripNulls {
		row = sqltext.Const("pg_catalog.json_strip_nulls(pg_catalog.row_to_json(_pgrst_t))")
	}
	switch opts.Representation.Media {
	case apirequest.MediaGeoJSON, apirequest.MediaHandler:
		return mediaBody(opts.Representation)
	case apirequest.MediaSingleObject:
		if !opts.Representation.StripNulls {
			return singleObjectBody
		}
		return sqltext.Fmt("coalesce((pg_catalog.json_agg(%s)->0)::text, 'null')", row)
	case apirequest.MediaCSV:
		// A header from the first row's keys, then each row's record text
		// without its parentheses, as PostgREST renders CSV.
		return sqltext.Const("(select coalesce(pg_catalog.string_agg(a.k, ','), '') from (select pg_catalog.json_object_keys(r) as k " +
			"from (select pg_catalog.row_to_json(hh) as r from pgrst_source as hh limit 1) s) a) || pg_catalog.chr(10) || " +
			"coalesce(pg_catalog.string_agg(pg_catalog.substring(_pgrst_t::text, 2, pg_catalog.length(_pgrst_t::text) - 2), pg_catalog.chr(10)), '')")
	}
	if !opts.Representation.StripNulls {
		return arrayBody
	}
	return sqltext.Fmt("coalesce(pg_catalog.json_agg(%s), '[]')::text", row)
}

// The bodies of the usual representations, made once.
var (
	arrayBody        = sqltext.Fmt("coalesce(pg_catalog.json_agg(%s), '[]')::text", sqltext.Const("_pgrst_t"))
	singleObjectBody = sqltext.Fmt("coalesce((pg_catalog.json_agg(%s)->0)::text, 'null')", sqltext.Const("_pgrst_t"))
)

// gen renders SQL, collecting bind arguments in order.
type gen struct {
	args [][]byte
	// argBytes holds the text of the values param copied (see param).
	argBytes []byte
	// keys holds the placeholder of each JSON path key bound so far.
	keys map[jsonKey]sqltext.SQL
	// rootFrom replaces the root relation in FROM (a CTE of written
	// rows, a function call); the root's row is then cast for computed
	// columns, which take the relation's row type, to the type named
	// rootRowSchema.rootRowName (when set). The name is quoted only if a
	// computed column needs it.
	rootFrom                   sqltext.SQL
	rootAlias                  string
	rootRowSchema, rootRowName string
	// extraColumns are appended to the standard result columns.
	extraColumns sqltext.SQL
	// hoisted holds the levels of to-one spreads, whose aggregates the
	// parent computes over its own rows.
	hoisted map[*plan.Read]bool
	// groupedAbove holds the levels of to-one spreads whose values a level
	// above groups its rows by (see groupsValues).
	groupedAbove map[*plan.Read]bool
	// counting is set while a count query's conditions are rendered: a
	// null test of an embed is then an EXISTS (see countQuery).
	counting bool
	// textEmbeds is set when the rows reach the body as their record
	// text (CSV, media type handlers): embeds are then jsonb, whose text
	// PostgREST's bodies show ({"id": 1}).
	textEmbeds bool
}

// param binds a copy of v and returns its placeholder. The copies share
// one buffer (argBytes), each capped at its own end, so a statement's
// values cost one allocation rather than one each.
func (g *gen) param(v string) sqltext.SQL {
	if v == "" {
		return g.paramBytes([]byte{})
	}
	g.reserveArgBytes(len(v))
	start := len(g.argBytes)
	g.argBytes = append(g.argBytes, v...)
	return g.paramBytes(g.argBytes[start:len(g.argBytes):len(g.argBytes)])
}

// paramInt binds n as its decimal text.
func (g *gen) paramInt(n int64) sqltext.SQL {
	g.reserveArgBytes(20)
	start := len(g.argBytes)
	g.argBytes = strconv.AppendInt(g.argBytes, n, 10)
	return g.paramBytes(g.argBytes[start:len(g.argBytes):len(g.argBytes)])
}

// argStorage is room for a usual statement's arguments and their text,
// allocated as one.
type argStorage struct {
	args  [4][]byte
	bytes [64]byte
}

// startArgs gives a statement without arguments yet room for some.
func (g *gen) startArgs() {
	if g.args == nil {
		s := &argStorage{}
		g.args, g.argBytes = s.args[:0], s.bytes[:0]
	}
}

// reserveArgBytes makes room for n more bytes in argBytes. A new buffer
// leaves the values already bound where they are.
func (g *gen) reserveArgBytes(n int) {
	g.startArgs()
	if cap(g.argBytes)-len(g.argBytes) < n {
		g.argBytes = make([]byte, 0, max(64, 2*n))
	}
}

// paramBytes binds v as it is, without a copy (a request body), and
// returns its placeholder.
func (g *gen) paramBytes(v []byte) sqltext.SQL {
	g.startArgs()
	g.args = append(g.args, v)
	return sqltext.Param(len(g.args))
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
func (g *gen) jsonKeyParam(step apirequest.JSONStep) sqltext.SQL {
	k := jsonKey{step.Key, step.IsIndex}
	if p, ok := g.keys[k]; ok {
		return p
	}
	placeholder := g.param(step.Key)
	p := sqltext.Fmt("%s::text", placeholder)
	if step.IsIndex {
		p = sqltext.Fmt("%s::integer", placeholder)
	}
	if g.keys == nil {
		g.keys = map[jsonKey]sqltext.SQL{}
	}
	g.keys[k] = p
	return p
}

// query renders one level whose FROM item is from: select list, the
// lateral join of each embed, where (cond, which ties an embedded level
// to its parent, and the level's conditions), group, order, limit.
func (g *gen) query(r *plan.Read, from sqltext.SQL, cond []sqltext.SQL) sqltext.SQL {
	var b sqltext.Builder
	g.writeQuery(&b, r, levelSource{from: from, cond: cond})
	return b.SQL()
}

// groupBy renders a level's GROUP BY clause, empty when it has none.
func (g *gen) groupBy(r *plan.Read) sqltext.SQL {
	if !r.GroupBy {
		return sqltext.SQL{}
	}
	keys := g.groupKeys(r)
	if len(keys) == 0 {
		return sqltext.SQL{}
	}
	return sqltext.Fmt(" group by %s", sqltext.Join(keys, ", "))
}

// orderBy renders a level's ORDER BY clause, empty when it has none.
func (g *gen) orderBy(r *plan.Read) sqltext.SQL {
	if len(r.Order) == 0 {
		return sqltext.SQL{}
	}
	terms := make([]sqltext.SQL, len(r.Order))
	for i, t := range r.Order {
		terms[i] = g.orderTerm(r, t)
	}
	return sqltext.Fmt(" order by %s", sqltext.Join(terms, ", "))
}

// countQuery is the root's rows without order, limit or output, as
// PostgREST counts them: an embed changes which rows there are only by
// !inner or by a null test (is.null, not.is.null), and each is an EXISTS
// of the embedded level's own count query (see countLevel), which the
// planner estimates as PostgREST's, so planned counts agree. A grouped
// root counts its groups, joining the embeds its grouping keys read.
func (g *gen) countQuery(r *plan.Read) sqltext.SQL {
	var b sqltext.Builder
	b.Const("select 1 from ")
	b.Write(g.fromItem(r, true))
	if r.GroupBy {
		for _, it := range r.Output {
			if it.Embed != nil && it.Embed.Shown() {
				b.Write(g.lateral(r, it.Embed))
			}
		}
	}
	counting := g.counting
	g.counting = true
	g.writeConditions(&b, r, g.innerExists(r, nil))
	g.counting = counting
	b.Write(g.groupBy(r))
	return b.SQL()
}

// countLevel is the count query of an embedded level, which its parent's
// EXISTS tests: the level's rows that belong to the parent's row and pass
// its conditions and its own !inner embeds. Order, limit and offset do
// not apply, as in PostgREST.
func (g *gen) countLevel(parent *plan.Read, e *plan.Embed) sqltext.SQL {
	from, cond := g.relationshipSource(parent, e)
	var b sqltext.Builder
	b.Const("select 1 from ")
	b.Write(from)
	g.writeConditions(&b, e.Plan, g.innerExists(e.Plan, cond))
	return b.SQL()
}

// innerExists appends to conds an EXISTS of each !inner embed of r.
func (g *gen) innerExists(r *plan.Read, conds []sqltext.SQL) []sqltext.SQL {
	for _, e := range r.Embeds {
		if e.Inner {
			conds = append(conds, sqltext.Fmt("exists (%s)", g.countLevel(r, e)))
		}
	}
	return conds
}

// fromItem is a level's relation with its alias; the root's may be
// replaced by rootFrom.
func (g *gen) fromItem(r *plan.Read, root bool) sqltext.SQL {
	if root && !g.rootFrom.IsEmpty() {
		return sqltext.Fmt("%s as %s", g.rootFrom, sqltext.Ident(r.Alias))
	}
	return sqltext.Fmt("%s as %s", sqltext.Qualified(r.Relation.Schema, r.Relation.Name), sqltext.Ident(r.Alias))
}

// lateral renders the join of one embed. Every embed yields one column,
// "body": the JSON array (to-many) or object (to-one) of the embedded
// rows. Spread embeds also expose their fields to the parent.
func (g *gen) lateral(parent *plan.Read, e *plan.Embed) sqltext.SQL {
	c := e.Plan
	joinKind := sqltext.Const(" left join lateral ")
	if e.Inner {
		joinKind = sqltext.Const(" inner join lateral ")
	}
	from, cond := g.relationshipSource(parent, e)
	if e.Spread && e.ToOne() {
		g.markHoisted(parent, c)
	}
	inner := g.query(c, from, cond)
	rows := sqltext.Ident(c.Alias + "_r")
	if e.ToOne() {
		return sqltext.Fmt("%s(%s) as %s on true", joinKind, inner, rows)
	}
	if e.ToManySpread() {
		return g.spreadArraysJoin(parent, e, joinKind, inner)
	}
	agg := sqltext.Ident(c.Alias + "_agg")
	on := sqltext.Const("true")
	if e.Inner {
		on = sqltext.Fmt("%s.body is not null", agg)
	}
	return sqltext.Fmt("%s(select pg_catalog.json_agg(%s) as body from (%s) as %s) as %s on %s",
		joinKind, rows, inner, rows, agg, on)
}

// relationshipSource is the embedded relation's FROM item and the
// conditions joining it to the parent row.
func (g *gen) relationshipSource(parent *plan.Read, e *plan.Embed) (sqltext.SQL, []sqltext.SQL) {
	c := e.Plan
	rs := e.Relationship
	target := g.fromItem(c, false)
	p, ch := sqltext.Ident(parent.Alias), sqltext.Ident(c.Alias)
	var cond []sqltext.SQL
	switch {
	case rs.Function != nil:
		fn := sqltext.Qualified(rs.Function.Schema, rs.Function.Name)
		return sqltext.Fmt("%s(%s) as %s", fn, g.rowArg(parent.Alias), ch), nil
	case rs.Junction != nil:
		j := rs.Junction
		ja := sqltext.Ident(c.Alias + "_j")
		var on []sqltext.SQL
		for _, pair := range j.TargetColumns {
			on = append(on, sqltext.Fmt("%s.%s = %s.%s", ja, sqltext.Ident(pair[1]), ch, sqltext.Ident(pair[0])))
		}
		for _, pair := range j.SourceColumns {
			cond = append(cond, sqltext.Fmt("%s.%s = %s.%s", ja, sqltext.Ident(pair[1]), p, sqltext.Ident(pair[0])))
		}
		return sqltext.Fmt("%s join %s as %s on %s",
			target, sqltext.Qualified(j.Table.Schema, j.Table.Name), ja, sqltext.Join(on, " and ")), cond
	default:
		for _, pair := range rs.Columns {
			cond = append(cond, sqltext.Fmt("%s.%s = %s.%s", ch, sqltext.Ident(pair[1]), p, sqltext.Ident(pair[0])))
		}
		return target, cond
	}
}

// selectItems renders one output item of a level: a field is one
// column, a spread as many as it exposes, a hidden embed none.
func (g *gen) selectItems(r *plan.Read, it plan.OutputItem) []sqltext.SQL {
	if it.Field != nil && it.Field.Aggregate != "" && g.hoisted[r] {
		return g.hoistedField(r, it.Field)
	}
	if it.Field != nil {
		return []sqltext.SQL{g.fieldExpr(r, it.Field)}
	}
	e := it.Embed
	switch {
	case e.ToManySpread():
		return spreadArrayItems(e)
	case e.Spread:
		return g.spreadSelect(e, !g.hoisted[r])
	case e.Shown():
		return []sqltext.SQL{sqltext.Fmt("%s as %s", g.embedBody(r, e), sqltext.Ident(e.Name))}
	}
	return nil
}

// embedBody is the JSON value of an embed in its parent's row.
func (g *gen) embedBody(parent *plan.Read, e *plan.Embed) sqltext.SQL {
	var cast sqltext.SQL
	if g.jsonbEmbeds(parent) {
		cast = sqltext.Const("::jsonb")
	}
	c := e.Plan
	if e.ToOne() {
		return sqltext.Fmt("pg_catalog.row_to_json(%s.*)%s", sqltext.Ident(c.Alias+"_r"), cast)
	}
	return sqltext.Fmt("coalesce(%s.body, '[]')%s", sqltext.Ident(c.Alias+"_agg"), cast)
}

// jsonbEmbeds says whether parent's embeds are jsonb: when its values are
// grouped (aggregates), as jsonb can be grouped, and when the rows reach
// the body as their record text (textEmbeds).
func (g *gen) jsonbEmbeds(parent *plan.Read) bool { return g.groupsValues(parent) || g.textEmbeds }

// groupKeys are the non-aggregate outputs of a level.
func (g *gen) groupKeys(r *plan.Read) []sqltext.SQL {
	var keys []sqltext.SQL
	for _, it := range r.Output {
		switch {
		case it.Embed != nil && it.Embed.ToManySpread():
			keys = append(keys, spreadArrayColumns(it.Embed)...)
		case it.Embed != nil && it.Embed.Spread:
			for _, v := range spreadValues(it.Embed) {
				switch {
				case v.star:
					keys = append(keys, columnsOf(it.Embed.Plan.Relation, it.Embed.Plan.Alias+"_r")...)
				case v.agg == nil:
					keys = append(keys, v.expr)
				}
			}
		case it.Embed != nil && it.Embed.Shown():
			keys = append(keys, g.embedBody(r, it.Embed))
		case it.Field != nil && it.Field.Aggregate == "" && it.Field.Format != nil:
			// Rows group by the stored value (json, which a representation
			// makes, has no equality); the formatted one is a function of
			// it, as in PostgREST.
			keys = append(keys, g.refExpr(r.Alias, it.Field.Ref))
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
func columnsOf(rel *schemacache.Relation, alias string) []sqltext.SQL {
	cols := make([]sqltext.SQL, len(rel.Columns))
	for i, col := range rel.Columns {
		cols[i] = sqltext.Fmt("%s.%s", sqltext.Ident(alias), sqltext.Ident(col.Name))
	}
	return cols
}

// fieldExpr renders a selected field with its output name.
func (g *gen) fieldExpr(r *plan.Read, f *plan.Field) sqltext.SQL {
	if f.Ref.Star {
		return sqltext.Fmt("%s.*", sqltext.Ident(r.Alias))
	}
	return sqltext.Fmt("%s as %s", g.valueExpr(r, f), sqltext.Ident(f.Name))
}

// aggregateFunctions are the aggregates a select may call, as SQL.
var aggregateFunctions = map[string]sqltext.SQL{
	"count": sqltext.Const("pg_catalog.count"), "sum": sqltext.Const("pg_catalog.sum"),
	"avg": sqltext.Const("pg_catalog.avg"), "min": sqltext.Const("pg_catalog.min"), "max": sqltext.Const("pg_catalog.max"),
}

// valueExpr is a field's value: the reference, cast, aggregated. Casts
// are sqltext.TypeName values, which the planner made with
// sqltext.ParseTypeName: request text cannot reach here as SQL.
func (g *gen) valueExpr(r *plan.Read, f *plan.Field) sqltext.SQL {
	var v sqltext.SQL
	if f.Ref.Column != "" || f.Ref.Computed != nil {
		v = g.refExpr(r.Alias, f.Ref)
		if f.Format != nil {
			// The data representation formats the domain; a cast applies
			// to what it made, as in PostgREST.
			v = sqltext.Fmt("%s(%s)", sqltext.Qualified(f.Format.Function.Schema, f.Format.Function.Name), v)
		}
		if !f.Cast.IsZero() {
			v = sqltext.Fmt("(%s)::%s", v, f.Cast.SQL())
		}
	}
	if f.Aggregate == "" {
		return v
	}
	return aggregate(f, v)
}

// aggregate applies f's aggregate to v, the value it aggregates (empty
// for count(), which counts rows), and casts the result.
func aggregate(f *plan.Field, v sqltext.SQL) sqltext.SQL {
	fn, ok := aggregateFunctions[f.Aggregate]
	if !ok {
		// The parser admits only the five aggregates above.
		panic("sqlgen: unknown aggregate " + strconv.Quote(f.Aggregate))
	}
	if v.IsEmpty() {
		v = sqltext.Const("*")
	}
	v = sqltext.Fmt("%s(%s)", fn, v)
	if !f.AggregateCast.IsZero() {
		v = sqltext.Fmt("(%s)::%s", v, f.AggregateCast.SQL())
	}
	return v
}

// rowArg is alias's row as the argument of a computed column or a
// computed relationship's function. The root's row of a function call or
// of written rows is a record: it is cast to its relation's type, so that
// PostgreSQL can choose among functions overloaded on row types.
func (g *gen) rowArg(alias string) sqltext.SQL {
	row := sqltext.Ident(alias)
	if g.rootRowName != "" && alias == g.rootAlias {
		row = sqltext.Fmt("%s::%s", row, sqltext.QualifiedType(g.rootRowSchema, g.rootRowName, 0).SQL())
	}
	return row
}

// refExpr renders a column, computed column or JSON path of alias's row.
// JSON keys are values and travel as parameters.
func (g *gen) refExpr(alias string, ref plan.ColumnRef) sqltext.SQL {
	var v sqltext.SQL
	if ref.Computed != nil {
		v = sqltext.Fmt("%s(%s)", sqltext.Qualified(ref.Computed.Schema, ref.Computed.Name), g.rowArg(alias))
	} else {
		v = sqltext.Fmt("%s.%s", sqltext.Ident(alias), sqltext.Ident(ref.Column))
	}
	if ref.ToJSON && len(ref.JSONPath) > 0 {
		// A composite or an array takes the arrows once it is JSON.
		v = sqltext.Fmt("pg_catalog.to_jsonb(%s)", v)
	}
	text := false
	for _, step := range ref.JSONPath {
		arrow := sqltext.Const("->")
		if step.Arrow == "->>" {
			arrow = sqltext.Const("->>")
		}
		key := g.jsonKeyParam(step)
		if text && !step.IsIndex {
			// An arrow after ->> applies to text, which has none:
			// PostgREST writes the key as a literal, and PostgreSQL
			// names its type unknown in the error (42883), as here.
			key = g.param(step.Key)
		}
		v = sqltext.Concat(v, arrow, key)
		text = step.Arrow == "->>"
	}
	return v
}

// orderTerm renders one ORDER BY key.
func (g *gen) orderTerm(r *plan.Read, t plan.OrderTerm) sqltext.SQL {
	var v sqltext.SQL
	if t.Embed != nil {
		v = g.refExpr(t.Embed.Plan.Alias+"_r", t.Ref)
	} else {
		v = g.refExpr(r.Alias, t.Ref)
	}
	switch t.Direction {
	case "asc":
		v = sqltext.Fmt("%s asc", v)
	case "desc":
		v = sqltext.Fmt("%s desc", v)
	}
	switch t.Nulls {
	case "first":
		v = sqltext.Fmt("%s nulls first", v)
	case "last":
		v = sqltext.Fmt("%s nulls last", v)
	}
	return v
}

// where renders the conditions of a level plus extra ones.
func (g *gen) where(r *plan.Read, extra []sqltext.SQL) sqltext.SQL {
	var b sqltext.Builder
	g.writeConditions(&b, r, extra)
	return b.SQL()
}
