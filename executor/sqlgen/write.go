package sqlgen

import (
	"strconv"

	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// WriteOptions shape the response part of a write statement.
type WriteOptions struct {
	ReadOptions
	// CountInserted adds a sixth result column counting inserted (not
	// updated) rows, to tell 201 from 200 after an upsert.
	CountInserted bool
	// Minimal returns no columns of the written rows (return=minimal):
	// the statement then needs no SELECT privilege, as in PostgREST.
	Minimal bool
}

// Write renders a mutation whose written rows the read plan p shapes
// into the response (return=representation), or only counts.
func Write(m plan.Mutation, p *plan.Read, opts WriteOptions) Statement {
	g := &gen{}
	table := sqltext.Qualified(m.Relation.Schema, m.Relation.Name)
	alias := sqltext.Ident(m.Relation.Name)
	// Counting needs a row each, not its columns; RETURNING 1 reads no
	// column, so the role needs no SELECT privilege to write. Otherwise
	// the statement returns the columns the response reads and no
	// others, so SELECT on those is all a role needs.
	var cols []string
	if !opts.Minimal {
		var whole bool
		if cols, whole = returnedColumns(m.Relation, p); whole {
			cols = make([]string, len(m.Relation.Columns))
			for i, c := range m.Relation.Columns {
				cols[i] = c.Name
			}
		}
	}
	// The read that follows the CTEs is rendered into the same builder,
	// given room for both.
	body := bodyExpr(opts.ReadOptions)
	readRoom := (&gen{rootFrom: sqltext.Const("pgrst_rows")}).statementSize(p, opts.ReadOptions, body)
	var w sqltext.Builder
	w.Grow(256 + 48*(len(cols)+len(m.Columns)) + readRoom)
	w.Const("with ")
	w.Const("pgrst_mutation as (")
	switch m.Kind {
	case plan.Insert:
		g.writeInsert(&w, m, table, alias, opts.CountInserted)
	case plan.Update:
		if len(m.Columns) == 0 {
			// Nothing to set: touch no row, as PostgREST answers an
			// empty PATCH, and read no column the response does not
			// need (each needs the SELECT privilege even where no row
			// is read).
			w.Const("select ")
			writeColumnNames(&w, alias, cols)
			w.Const(" from ")
			w.Write(table)
			w.Const(" as ")
			w.Write(alias)
			w.Const(" where false")
			break
		}
		w.Write(g.update(m, table, alias))
	case plan.Delete:
		w.Write(sqltext.Fmt("delete from %s as %s%s", table, alias, g.writeWhere(m, table, alias)))
	}
	switch {
	case m.Kind == plan.Update && len(m.Columns) == 0:
		// the no-op select already yields the (no) rows
	case len(cols) == 0:
		w.Const(" returning 1")
	default:
		w.Const(" returning ")
		writeColumnNames(&w, alias, cols)
	}
	w.Const("), pgrst_rows as (")
	if len(cols) == 0 {
		w.Const("select from pgrst_mutation")
	} else {
		w.Const("select ")
		writeColumnNames(&w, sqltext.SQL{}, cols)
		w.Const(" from pgrst_mutation")
	}
	w.Const("), ")
	g.rootFrom, g.rootAlias = sqltext.Const("pgrst_rows"), p.Alias
	g.rootRowSchema, g.rootRowName = m.Relation.Schema, m.Relation.Name
	if opts.CountInserted {
		// Read once the mutation has run: the final select aggregates
		// every row it returned first.
		g.extraColumns = sqltext.Const(", nullif(pg_catalog.current_setting('pgrst.inserted', true), '')::bigint as pgrst_inserted")
	}
	st, _ := g.readInto(&w, p, opts.ReadOptions, body)
	return st
}

// countInsertedRow and countUpdatedRow count, in the transaction-local
// setting pgrst.inserted, the rows an upsert proposes for insertion and
// takes back those that ON CONFLICT turned into updates. PostgREST counts
// the same way; unlike xmax it also works through a view.
const (
	countInsertedRow = "pg_catalog.set_config('pgrst.inserted', (coalesce(nullif(pg_catalog.current_setting('pgrst.inserted', true), '')::int, 0) + 1)::text, true) <> '0'"
	countUpdatedRow  = "pg_catalog.set_config('pgrst.inserted', (coalesce(nullif(pg_catalog.current_setting('pgrst.inserted', true), '')::int, 0) - 1)::text, true) <> '-1'"
)

// writeInsert writes INSERT ... SELECT from the JSON payload; count
// keeps the tally of inserted rows an upsert's status needs.
func (g *gen) writeInsert(b *sqltext.Builder, m plan.Mutation, table, alias sqltext.SQL, count bool) {
	b.Const("insert into ")
	b.Write(table)
	b.Const(" as ")
	b.Write(alias)
	if len(m.Columns) == 0 {
		// {} or [{}, ...]: rows of defaults.
		b.Const(" select from pg_catalog.json_array_elements(")
		b.Write(g.paramBytes(m.Payload))
		b.Const("::json)")
		if count {
			b.Const(" where " + countInsertedRow)
		}
		b.Write(g.onConflict(m, count))
		return
	}
	b.Const(" (")
	writeColumnNames(b, sqltext.SQL{}, m.Columns)
	b.Const(") select ")
	for i, c := range m.Columns {
		if i > 0 {
			b.Const(", ")
		}
		_, parsed := m.Parsers[c]
		if _, ok := g.missingDefault(m, c); !parsed && !ok {
			b.Const("pgrst_body.")
			b.Ident(c)
			continue
		}
		value := sqltext.Fmt("pgrst_body.%s", sqltext.Ident(c))
		if parser, ok := m.Parsers[c]; ok {
			value = g.parsedJSON(parser, sqltext.Const("pgrst_el.j"), c)
		}
		if _, ok := g.missingDefault(m, c); ok {
			value = sqltext.Fmt("case when pgrst_el.j::jsonb ? %s then %s else pgrst_defaults.%s end", g.param(c), value, sqltext.Ident(c))
		}
		b.Write(value)
	}
	b.Const(" from pg_catalog.json_array_elements(")
	b.Write(g.paramBytes(m.Payload))
	b.Const("::json) as pgrst_el(j), ")
	b.Write(g.rowDefaults(m))
	b.Const("lateral pg_catalog.json_populate_record(null::")
	b.Write(table)
	b.Const(", ")
	b.Write(g.payloadObject(m, sqltext.Const("pgrst_el.j")))
	b.Const(") as pgrst_body")
	for i, km := range m.KeyMatch {
		if i == 0 {
			b.Const(" where ")
		} else {
			b.Const(" and ")
		}
		b.Const("pgrst_body.")
		b.Ident(km[0])
		b.Const(" = ")
		b.Write(g.param(km[1]))
	}
	if count {
		if len(m.KeyMatch) == 0 {
			b.Const(" where ")
		} else {
			b.Const(" and ")
		}
		b.Const(countInsertedRow)
	}
	b.Write(g.onConflict(m, count))
}

// rowDefaults is, under Prefer: missing=default, a lateral subquery
// evaluating the default of every column that has one once for each
// payload row, followed by a comma; empty otherwise. PostgREST merges the
// defaults into every row before it reads the row's keys, so a bulk
// insert takes a sequence's next value for each row, even for a row that
// gives the column a value: [{"id":100},{"slug":"s"}] takes two and the
// second row gets the later one. Its always-true condition on the row
// (json_array_elements yields no SQL NULL) makes it lateral, evaluated for
// each row; PostgreSQL neither pulls up nor drops a subquery output that
// calls a volatile function such as nextval. Its only outputs are the
// columns, named as the table's, so none can clash.
func (g *gen) rowDefaults(m plan.Mutation) sqltext.SQL {
	var defaults []sqltext.SQL
	for _, c := range m.Columns {
		if d, ok := g.missingDefault(m, c); ok {
			defaults = append(defaults, sqltext.Fmt("%s as %s", d, sqltext.Ident(c)))
		}
	}
	if len(defaults) == 0 {
		return sqltext.SQL{}
	}
	return sqltext.Fmt("lateral (select %s where pgrst_el.j is not null) as pgrst_defaults, ", sqltext.Join(defaults, ", "))
}

// onConflict renders the upsert clause; count takes an updated row back
// out of the tally of inserted ones.
func (g *gen) onConflict(m plan.Mutation, count bool) sqltext.SQL {
	if len(m.OnConflict) == 0 {
		return sqltext.SQL{}
	}
	keys := make([]sqltext.SQL, len(m.OnConflict))
	for i, c := range m.OnConflict {
		keys[i] = sqltext.Ident(c)
	}
	s := sqltext.Fmt(" on conflict (%s)", sqltext.Join(keys, ", "))
	if m.IgnoreDuplicates || len(m.Columns) == 0 {
		return sqltext.Fmt("%s do nothing", s)
	}
	sets := make([]sqltext.SQL, len(m.Columns))
	for i, c := range m.Columns {
		sets[i] = sqltext.Fmt("%s = excluded.%s", sqltext.Ident(c), sqltext.Ident(c))
	}
	s = sqltext.Fmt("%s do update set %s", s, sqltext.Join(sets, ", "))
	if count {
		s = sqltext.Fmt("%s where "+countUpdatedRow, s)
	}
	return s
}

// writeColumnNames writes the columns named, quoted and separated by commas,
// each after qualifier and a dot unless qualifier is empty.
func writeColumnNames(b *sqltext.Builder, qualifier sqltext.SQL, names []string) {
	for i, c := range names {
		if i > 0 {
			b.Const(", ")
		}
		if !qualifier.IsEmpty() {
			b.Write(qualifier)
			b.Const(".")
		}
		b.Ident(c)
	}
}

// update renders UPDATE ... SET from the JSON payload object, which has
// at least one column to set.
func (g *gen) update(m plan.Mutation, table, alias sqltext.SQL) sqltext.SQL {
	// The payload is bound first, then the keys the defaults test, then
	// the filter values writeWhere binds. The object is read as a row of
	// json_array_elements, which PostgreSQL cannot fold into a constant
	// when it plans: a parser (an immutable function) of a constant would
	// run then, failing on a bad value even where no row is updated, which
	// PostgREST answers 200 (UpdateSpec "ignores json keys and gives 200
	// if no record updated").
	payload := sqltext.Fmt("%s::json", g.paramBytes(m.Payload))
	obj := sqltext.Const("pgrst_el.j")
	sets := make([]sqltext.SQL, len(m.Columns))
	for i, c := range m.Columns {
		value := sqltext.Fmt("pgrst_body.%s", sqltext.Ident(c))
		if parser, ok := m.Parsers[c]; ok {
			value = g.parsedJSON(parser, obj, c)
		}
		if d, ok := g.missingDefault(m, c); ok {
			// columns= names a column the object lacks: PostgREST sets
			// it to its default with missing=default, as an insert does.
			value = sqltext.Fmt("case when (%s -> %s) is not null then %s else %s end", obj, g.param(c), value, d)
		}
		sets[i] = sqltext.Fmt("%s = %s", sqltext.Ident(c), value)
	}
	return sqltext.Fmt("update %s as %s set %s from pg_catalog.json_array_elements(pg_catalog.json_build_array(%s)) as pgrst_el(j), lateral pg_catalog.json_populate_record(null::%s, %s) as pgrst_body%s",
		table, alias, sqltext.Join(sets, ", "), payload, table, g.payloadObject(m, obj), g.writeWhere(m, table, alias))
}

// missingDefault is what column c takes where a payload row lacks its
// key under Prefer: missing=default: its insert default, which is the
// catalog's own text (pg_get_expr and the like), never the request's. It
// is an expression, which no quoting could render. ok is false without
// missing=default or when the column has no default (the value is then
// NULL, as in PostgREST).
func (g *gen) missingDefault(m plan.Mutation, c string) (sqltext.SQL, bool) {
	if !m.MissingDefault {
		return sqltext.SQL{}, false
	}
	col, ok := m.Relation.Column(c)
	if !ok || col.InsertDefault == "" {
		return sqltext.SQL{}, false
	}
	return sqltext.Catalog(col.InsertDefault), true
}

// writeWhere renders the filters of an Update or Delete; with a limit or
// an offset, the rows are picked by ctid in the requested order first.
func (g *gen) writeWhere(m plan.Mutation, table, alias sqltext.SQL) sqltext.SQL {
	w := m.Where
	if w == nil {
		return sqltext.SQL{}
	}
	if m.Limit == nil && m.Offset == 0 {
		return g.where(w, nil)
	}
	var inner sqltext.Builder
	inner.Write(sqltext.Fmt("select %s.ctid from %s as %s", alias, table, alias), g.where(w, nil), g.orderBy(w))
	if m.Limit != nil {
		inner.Const(" limit ")
		inner.Write(g.param(strconv.FormatInt(*m.Limit, 10)))
	}
	if m.Offset > 0 {
		inner.Const(" offset ")
		inner.Write(g.param(strconv.FormatInt(m.Offset, 10)))
	}
	return sqltext.Fmt(" where %s.ctid = any(array(%s))", alias, inner.SQL())
}

// parsedJSON is the value of column c in the JSON object obj, passed
// through the column's JSON parser (a data representation): the parser
// takes the JSON value, not the text json_populate_record would read.
func (g *gen) parsedJSON(parser *schemacache.Representation, obj sqltext.SQL, c string) sqltext.SQL {
	return sqltext.Fmt("%s(%s -> %s::text)",
		sqltext.Qualified(parser.Function.Schema, parser.Function.Name), obj, g.param(c))
}

// payloadObject is the JSON object obj as json_populate_record reads
// it: without the keys of columns that have a JSON parser (it would read
// their values as the domain's text input, which is what the parser
// replaces) and, when columns= lists the columns, without any key it does
// not list, so that no value of another key is parsed: one its column's
// type would refuse, or of no column at all, is no error, as in PostgREST
// (InsertSpec "ignores json keys not included in ?columns; parses only the
// ones specified").
func (g *gen) payloadObject(m plan.Mutation, obj sqltext.SQL) sqltext.SQL {
	var keys []string
	for _, c := range m.Columns {
		if _, ok := m.Parsers[c]; ok == !m.ColumnsListed {
			keys = append(keys, c)
		}
	}
	if m.ColumnsListed {
		return sqltext.Fmt("(select pg_catalog.json_object_agg(pgrst_kv.key, pgrst_kv.value) from pg_catalog.json_each(%s) as pgrst_kv where pgrst_kv.key = any(%s::text[]))",
			obj, g.param(arrayLiteral(keys)))
	}
	if len(keys) == 0 {
		return obj
	}
	return sqltext.Fmt("(%s::jsonb - %s::text[])::json", obj, g.param(arrayLiteral(keys)))
}
