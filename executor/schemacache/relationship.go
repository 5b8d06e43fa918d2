package schemacache

import (
	"cmp"
	"slices"
	"strings"
)

// Cardinality is how many rows of the foreign table one row of the table
// relates to, as PostgREST's resource embedding names it.
type Cardinality int

// Relationship cardinalities. The order of M2O..M2M is not PostgREST's sort
// order; compareRelationships owns that.
const (
	// M2O: the table holds a foreign key to the foreign table.
	M2O Cardinality = iota + 1
	// O2M: the foreign table holds a foreign key to the table.
	O2M
	// O2O: a foreign key whose columns are also the primary key or a
	// unique constraint of the table holding it, seen from either side.
	O2O
	// M2M: through a junction holding foreign keys to both.
	M2M
	// Computed: a function taking the table's row and returning rows of
	// the foreign table.
	Computed
)

// String is PostgREST's name for the cardinality, as PGRST201 details
// print it.
func (c Cardinality) String() string {
	switch c {
	case M2O:
		return "many-to-one"
	case O2M:
		return "one-to-many"
	case O2O:
		return "one-to-one"
	case M2M:
		return "many-to-many"
	case Computed:
		return "computed"
	}
	return "unknown"
}

// Relationship is one way to embed ForeignTable in Table.
type Relationship struct {
	Table, ForeignTable QualifiedName
	// IsSelf is true when Table and ForeignTable are the same relation.
	IsSelf bool
	// TableIsView and ForeignTableIsView say which ends are views whose
	// relationship was derived from their base tables' foreign keys.
	TableIsView, ForeignTableIsView bool
	Cardinality                     Cardinality
	// Constraint is the foreign key's name (M2O, O2M, O2O).
	Constraint string
	// Columns pairs a column of Table with the column of ForeignTable it
	// joins on, in key order (M2O, O2M, O2O). For views they are the view's
	// column names.
	Columns [][2]string
	// IsParent is, for O2O, true when Table is the referenced side (the
	// foreign key is held by ForeignTable).
	IsParent bool
	// Junction is the junction of an M2M relationship.
	Junction *Junction
	// Function is the function of a Computed relationship: it takes a row
	// of Table and returns rows of ForeignTable.
	Function *Function
}

// Junction is the relation between the two ends of an M2M relationship.
type Junction struct {
	Table QualifiedName
	// Constraint1 is the junction's foreign key to the relationship's
	// Table, Constraint2 the one to its ForeignTable.
	Constraint1, Constraint2 string
	// SourceColumns pairs a column of the relationship's Table with the
	// junction column referencing it (Constraint1's columns).
	SourceColumns [][2]string
	// TargetColumns pairs a column of the relationship's ForeignTable with
	// the junction column referencing it (Constraint2's columns).
	TargetColumns [][2]string
}

// ToOne says whether an embedding along r yields at most one row (a JSON
// object, and what a to-one spread needs) rather than an array: M2O, O2O,
// and computed relationships whose function is not SETOF or is declared
// ROWS 1.
func (r *Relationship) ToOne() bool {
	switch r.Cardinality {
	case M2O, O2O:
		return true
	case Computed:
		return r.Function != nil && (!r.Function.Returns.Set || r.Function.Rows == 1)
	}
	return false
}

// Describe is the relationship as one entry of PGRST201's details, as
// PostgREST prints it: cardinality, embedding ("projects with clients")
// and relationship ("projects_client_id_fkey using projects(client_id)
// and clients(id)"; for M2M the junction, its constraints and columns).
// A computed relationship, which cannot be ambiguous, describes as empty.
func (r *Relationship) Describe() map[string]string {
	if r.Cardinality == Computed {
		return map[string]string{}
	}
	d := map[string]string{
		"cardinality": r.Cardinality.String(),
		"embedding":   r.Table.Name + " with " + r.ForeignTable.Name,
	}
	if r.Cardinality == M2M && r.Junction != nil {
		j := r.Junction
		d["relationship"] = j.Table.Name + " using " + j.Constraint1 + parenList(j.SourceColumns, 1) +
			" and " + j.Constraint2 + parenList(j.TargetColumns, 1)
		return d
	}
	d["relationship"] = r.Constraint + " using " + r.Table.Name + parenList(r.Columns, 0) +
		" and " + r.ForeignTable.Name + parenList(r.Columns, 1)
	return d
}

// HintName is the target!hint that picks r out of an ambiguity, as
// PGRST201's hint lists them: "clients!projects_client_id_fkey", or the
// junction for M2M ("users!users_tasks"). Empty for a computed
// relationship.
func (r *Relationship) HintName() string {
	switch r.Cardinality {
	case M2M:
		if r.Junction != nil {
			return r.ForeignTable.Name + "!" + r.Junction.Table.Name
		}
	case M2O, O2M, O2O:
		return r.ForeignTable.Name + "!" + r.Constraint
	}
	return ""
}

func parenList(pairs [][2]string, side int) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, p := range pairs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p[side])
	}
	b.WriteByte(')')
	return b.String()
}

// Relationships returns every relationship starting at schema.table, in
// PostgREST's order, including those to other exposed schemas. The slice
// is shared: do not modify it.
func (c *Cache) Relationships(schema, table string) []*Relationship {
	return c.relationships[QualifiedName{schema, table}]
}

// FindRelationships resolves an embedding /from?select=to!hint(...) in
// schema the way PostgREST does: to names the foreign table or view, or
// (deprecated, tables only) a foreign key or a single foreign-key column
// of from, or a computed relationship's function; hint, when not empty,
// names the foreign key, a column of either side of a single-column key,
// or the junction of an M2M. Only relationships whose foreign table (or
// function) is in schema count.
//
// Self-relationships follow PostgREST's convention: without a hint, to
// as the table's name is the O2M (children) and to as the foreign-key
// column is the M2O (parent); with a hint, to is the table's name and the
// hint the referenced column, giving the O2M.
//
// None found is PGRST200; more than one is PGRST201, each described by
// Describe and HintName.
func (c *Cache) FindRelationships(schema, from, to, hint string) []*Relationship {
	var found []*Relationship
	for _, r := range c.relationships[QualifiedName{schema, from}] {
		if r.Cardinality == Computed {
			if r.Function != nil && r.Function.Schema == schema && r.Function.Name == to {
				found = append(found, r)
			}
			continue
		}
		if r.ForeignTable.Schema != schema {
			continue
		}
		if matchRelationship(r, to, hint) {
			found = append(found, r)
		}
	}
	return found
}

func matchRelationship(r *Relationship, to, hint string) bool {
	isTarget := to == r.ForeignTable.Name
	if r.IsSelf {
		if hint == "" {
			return isTarget && r.Cardinality == O2M ||
				r.Cardinality == M2O && r.matchColumn(0, to)
		}
		return isTarget && r.Cardinality == O2M && r.matchColumn(1, hint)
	}
	if hint == "" {
		return isTarget ||
			r.matchConstraint(to) && !r.ForeignTableIsView ||
			r.matchColumn(0, to) && !r.ForeignTableIsView
	}
	return isTarget && (r.matchConstraint(hint) ||
		r.matchColumn(0, hint) ||
		r.matchColumn(1, hint) ||
		r.Cardinality == M2M && r.Junction != nil && r.Junction.Table.Name == hint)
}

// matchConstraint says whether name is the foreign key of an M2O, O2M or
// O2O relationship.
func (r *Relationship) matchConstraint(name string) bool {
	switch r.Cardinality {
	case M2O, O2M, O2O:
		return r.Constraint == name
	}
	return false
}

// matchColumn says whether name is the column on side 0 (Table) or 1
// (ForeignTable) of a single-column foreign key.
func (r *Relationship) matchColumn(side int, name string) bool {
	switch r.Cardinality {
	case M2O, O2M, O2O:
		return len(r.Columns) == 1 && r.Columns[0][side] == name
	}
	return false
}

// ComputedColumn returns the function that computes column name of
// schema.table: a function of the same schema whose only parameter is the
// table's row type and that returns one value (not SETOF, not void).
func (c *Cache) ComputedColumn(schema, table, name string) (*Function, bool) {
	f, ok := c.computedColumns[QualifiedName{schema, table}][name]
	return f, ok
}

// cardinalityRank is the constructor order of PostgREST's Cardinality
// type, which its derived Ord follows.
func cardinalityRank(c Cardinality) int {
	switch c {
	case O2M:
		return 0
	case M2O:
		return 1
	case O2O:
		return 2
	case M2M:
		return 3
	}
	return 4
}

// compareRelationships orders relationships as PostgREST's derived Ord
// does, which is the order it lists ambiguous relationships in: FK
// relationships before computed ones; then table, foreign table,
// self-ness, cardinality (one-to-many, many-to-one, one-to-one,
// many-to-many) and its fields, and the view flags.
func compareRelationships(a, b *Relationship) int {
	ac, bc := a.Cardinality == Computed, b.Cardinality == Computed
	if ac != bc {
		return cmpBool(ac, bc)
	}
	if ac {
		return cmp.Or(
			compareNames(functionName(a), functionName(b)),
			compareNames(a.Table, b.Table),
			compareNames(a.ForeignTable, b.ForeignTable),
			cmpBool(a.ToOne(), b.ToOne()),
			cmpBool(a.IsSelf, b.IsSelf),
		)
	}
	if c := cmp.Or(
		compareNames(a.Table, b.Table),
		compareNames(a.ForeignTable, b.ForeignTable),
		cmpBool(a.IsSelf, b.IsSelf),
		cmp.Compare(cardinalityRank(a.Cardinality), cardinalityRank(b.Cardinality)),
	); c != 0 {
		return c
	}
	var c int
	if a.Cardinality == M2M {
		c = compareJunctions(a.Junction, b.Junction)
	} else {
		c = cmp.Or(
			cmp.Compare(a.Constraint, b.Constraint),
			comparePairs(a.Columns, b.Columns),
			cmpBool(a.IsParent, b.IsParent),
		)
	}
	return cmp.Or(c,
		cmpBool(a.TableIsView, b.TableIsView),
		cmpBool(a.ForeignTableIsView, b.ForeignTableIsView),
	)
}

func functionName(r *Relationship) QualifiedName {
	if r.Function == nil {
		return QualifiedName{}
	}
	return QualifiedName{r.Function.Schema, r.Function.Name}
}

func compareJunctions(a, b *Junction) int {
	if a == nil || b == nil {
		return cmpBool(a != nil, b != nil)
	}
	return cmp.Or(
		compareNames(a.Table, b.Table),
		cmp.Compare(a.Constraint1, b.Constraint1),
		cmp.Compare(a.Constraint2, b.Constraint2),
		comparePairs(a.SourceColumns, b.SourceColumns),
		comparePairs(a.TargetColumns, b.TargetColumns),
	)
}

func compareNames(a, b QualifiedName) int {
	return cmp.Or(cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.Name, b.Name))
}

func comparePairs(a, b [][2]string) int {
	return slices.CompareFunc(a, b, func(x, y [2]string) int {
		return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]))
	})
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
