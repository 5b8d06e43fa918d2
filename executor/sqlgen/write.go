package sqlgen

import (
	"strconv"
	"strings"

	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schema"
)

// MutationKind is the statement a write runs.
type MutationKind int

// Mutations.
const (
	Insert MutationKind = iota
	Update
	Delete
)

// Mutation is a planned write on one relation.
type Mutation struct {
	Kind     MutationKind
	Relation *schema.Relation
	// Columns are the payload's columns, in order (Insert, Update).
	Columns []string
	// Payload is a JSON array of row objects (Insert) or one object
	// (Update); it travels as one argument.
	Payload []byte
	// MissingDefault fills absent keys with the column default
	// (Prefer: missing=default) instead of NULL.
	MissingDefault bool
	// OnConflict makes an Insert an upsert on these columns; IgnoreDuplicates
	// skips conflicting rows instead of merging them.
	OnConflict       []string
	IgnoreDuplicates bool
	// Where restricts Update and Delete; it is the filters of the plan's
	// root, rendered against the relation.
	Where *plan.Read
	// Limit and Offset bound Update and Delete to a slice of the rows in
	// Where's order, as PostgREST's limited update and delete do.
	Limit  *int64
	Offset int64
	// KeyMatch (PUT) keeps only payload rows whose key equals the URL's:
	// column name to the filter's value.
	KeyMatch [][2]string
}

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
func Write(m Mutation, p *plan.Read, opts WriteOptions) Statement {
	g := &gen{}
	table := QualifiedName(m.Relation.Schema, m.Relation.Name)
	alias := QuoteIdent(m.Relation.Name)
	var mut string
	switch m.Kind {
	case Insert:
		mut = g.insert(m, table, alias, opts.CountInserted)
	case Update:
		mut = g.update(m, table, alias)
	case Delete:
		mut = "delete from " + table + " as " + alias + g.writeWhere(m, table, alias)
	}
	// Counting needs a row each, not its columns; RETURNING 1 reads no
	// column, so the role needs no SELECT privilege to write.
	returning, rows := " returning 1", "select from pgrst_mutation"
	if !opts.Minimal {
		cols := make([]string, len(m.Relation.Columns))
		for i, c := range m.Relation.Columns {
			cols[i] = QuoteIdent(c.Name)
		}
		returning = " returning " + alias + ".*"
		rows = "select " + strings.Join(cols, ", ") + " from pgrst_mutation"
	}
	if m.Kind == Update && len(m.Columns) == 0 {
		returning = "" // the no-op select already yields the (no) rows
	}
	with := "pgrst_mutation as (" + mut + returning + "), pgrst_rows as (" + rows + "), "
	g.rootFrom, g.rootAlias, g.rootRowType = "pgrst_rows", p.Alias, table
	if opts.CountInserted {
		// Read once the mutation has run: the final select aggregates
		// every row it returned first.
		g.extraColumns = ", nullif(pg_catalog.current_setting('pgrst.inserted', true), '')::bigint as pgrst_inserted"
	}
	st, _ := g.read(p, opts.ReadOptions, with)
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

// insert renders INSERT ... SELECT from the JSON payload; count keeps
// the tally of inserted rows an upsert's status needs.
func (g *gen) insert(m Mutation, table, alias string, count bool) string {
	var b strings.Builder
	b.WriteString("insert into " + table + " as " + alias)
	if len(m.Columns) == 0 {
		// {} or [{}, ...]: rows of defaults.
		b.WriteString(" select from pg_catalog.json_array_elements(" + g.paramBytes(m.Payload) + "::json)")
		if count {
			b.WriteString(" where " + countInsertedRow)
		}
		return b.String() + g.onConflict(m, count)
	}
	quoted := make([]string, len(m.Columns))
	for i, c := range m.Columns {
		quoted[i] = QuoteIdent(c)
	}
	b.WriteString(" (" + strings.Join(quoted, ", ") + ") select ")
	values := make([]string, len(m.Columns))
	for i, c := range m.Columns {
		values[i] = "pgrst_body." + quoted[i]
		if col, ok := m.Relation.Column(c); ok && m.MissingDefault && col.HasDefault {
			// The default expression comes from the catalog, not the
			// request: pg_get_expr of the column's default.
			values[i] = "case when pgrst_el.j::jsonb ? " + g.param(c) + " then " + values[i] +
				" else " + col.Default + " end"
		}
	}
	b.WriteString(strings.Join(values, ", "))
	b.WriteString(" from pg_catalog.json_array_elements(" + g.paramBytes(m.Payload) + "::json) as pgrst_el(j), " +
		"lateral pg_catalog.json_populate_record(null::" + table + ", pgrst_el.j) as pgrst_body")
	var conds []string
	for _, km := range m.KeyMatch {
		conds = append(conds, "pgrst_body."+QuoteIdent(km[0])+" = "+g.param(km[1]))
	}
	if count {
		conds = append(conds, countInsertedRow)
	}
	if len(conds) > 0 {
		b.WriteString(" where " + strings.Join(conds, " and "))
	}
	return b.String() + g.onConflict(m, count)
}

// onConflict renders the upsert clause; count takes an updated row back
// out of the tally of inserted ones.
func (g *gen) onConflict(m Mutation, count bool) string {
	if len(m.OnConflict) == 0 {
		return ""
	}
	keys := make([]string, len(m.OnConflict))
	for i, c := range m.OnConflict {
		keys[i] = QuoteIdent(c)
	}
	s := " on conflict (" + strings.Join(keys, ", ") + ")"
	if m.IgnoreDuplicates || len(m.Columns) == 0 {
		return s + " do nothing"
	}
	sets := make([]string, len(m.Columns))
	for i, c := range m.Columns {
		sets[i] = QuoteIdent(c) + " = excluded." + QuoteIdent(c)
	}
	s += " do update set " + strings.Join(sets, ", ")
	if count {
		s += " where " + countUpdatedRow
	}
	return s
}

// update renders UPDATE ... SET from the JSON payload object.
func (g *gen) update(m Mutation, table, alias string) string {
	if len(m.Columns) == 0 {
		// Nothing to set: touch no row, as PostgREST answers an empty
		// PATCH.
		return "select " + alias + ".* from " + table + " as " + alias + " where false"
	}
	sets := make([]string, len(m.Columns))
	for i, c := range m.Columns {
		sets[i] = QuoteIdent(c) + " = pgrst_body." + QuoteIdent(c)
	}
	return "update " + table + " as " + alias + " set " + strings.Join(sets, ", ") +
		" from (select * from pg_catalog.json_populate_record(null::" + table + ", " + g.paramBytes(m.Payload) + "::json)) as pgrst_body" +
		g.writeWhere(m, table, alias)
}

// writeWhere renders the filters of an Update or Delete; with a limit or
// an offset, the rows are picked by ctid in the requested order first.
func (g *gen) writeWhere(m Mutation, table, alias string) string {
	w := m.Where
	if w == nil {
		return ""
	}
	if m.Limit == nil && m.Offset == 0 {
		return g.where(w, nil)
	}
	inner := "select " + alias + ".ctid from " + table + " as " + alias + g.where(w, nil) + g.orderBy(w)
	if m.Limit != nil {
		inner += " limit " + g.param(strconv.FormatInt(*m.Limit, 10))
	}
	if m.Offset > 0 {
		inner += " offset " + g.param(strconv.FormatInt(m.Offset, 10))
	}
	cond := alias + ".ctid = any(array(" + inner + "))"
	return " where " + cond
}
