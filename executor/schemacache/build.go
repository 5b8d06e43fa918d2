package schemacache

import (
	"slices"
)

// Catalog is what Load reads from PostgreSQL, before anything is derived
// from it. Build turns it into a Cache; tests of the planner build one by
// hand.
type Catalog struct {
	// ServerVersionNum is server_version_num.
	ServerVersionNum int
	// Schemas are the exposed schemas (db_schemas).
	Schemas []string
	// Relations and Functions of the exposed schemas. Build takes them
	// over: it fills in their keys and indexes.
	Relations []*Relation
	Functions []*Function
	// Keys are the primary keys and unique constraints of the tables in
	// Relations and of every table the foreign keys and view columns below
	// name, in any schema. They are authoritative: Build sets each exposed
	// table's PrimaryKey and UniqueKeys from them.
	Keys []Key
	// ForeignKeys are the foreign keys from or to a relation in Relations
	// or a base table of an exposed view, in any schema.
	ForeignKeys []ForeignKey
	// ViewColumns trace the columns of the exposed views to the base table
	// columns they show unchanged, through nested views. Load lists those
	// whose base column is part of a key; others change nothing.
	ViewColumns []ViewColumn
	// RoleSettings are the settings of each role the authenticator may
	// switch to (ALTER ROLE ... SET), as requests apply them.
	RoleSettings map[string][]Setting
	// MediaHandlers are the media type handlers of the exposed schemas;
	// PostGISSchema is where PostGIS is installed ("" when it is not).
	MediaHandlers []*MediaHandler
	PostGISSchema string
	// Representations are the data representations: implicit casts
	// between a domain and json or text (see Representation).
	Representations []Representation
	// Domains maps each domain to the type it is based on, both as
	// format_type renders them.
	Domains map[string]string
}

// Key is a primary key or unique constraint.
type Key struct {
	Table      QualifiedName
	Constraint string
	Primary    bool
	// Columns in key order.
	Columns []string
}

// ForeignKey is a foreign key constraint of Table referencing
// ForeignTable.
type ForeignKey struct {
	Constraint          string
	Table, ForeignTable QualifiedName
	// Columns pairs each referencing column of Table with the column of
	// ForeignTable it references, in key order.
	Columns [][2]string
}

// ViewColumn says that column Column of view View is column TableColumn of
// base table Table.
type ViewColumn struct {
	View        QualifiedName
	Column      string
	Table       QualifiedName
	TableColumn string
}

// Build assembles a Cache from a Catalog: it indexes relations and
// functions, infers views' primary keys and derives every relationship
// (foreign keys seen from both ends and through views, junctions, computed
// relationships) and computed column, the way PostgREST's schema cache
// does.
func Build(cat *Catalog) *Cache {
	c := &Cache{
		ServerVersionNum: cat.ServerVersionNum,
		Relations:        make(map[string]map[string]*Relation, len(cat.Schemas)),
		Functions:        make(map[string]map[string][]*Function, len(cat.Schemas)),
		relationships:    map[QualifiedName][]*Relationship{},
		relationshipKeys: map[relationshipKey]bool{},
		computedColumns:  map[QualifiedName]map[string]*Function{},
		RoleSettings:     cat.RoleSettings,
		PostGISSchema:    cat.PostGISSchema,
		mediaHandlers:    indexMediaHandlers(cat.MediaHandlers),
		representations:  indexRepresentations(cat.Representations),
		domains:          cat.Domains,
	}
	exposed := make(map[string]bool, len(cat.Schemas))
	for _, s := range cat.Schemas {
		exposed[s] = true
		c.Relations[s] = map[string]*Relation{}
		c.Functions[s] = map[string][]*Function{}
	}
	for _, r := range cat.Relations {
		if c.Relations[r.Schema] == nil {
			c.Relations[r.Schema] = map[string]*Relation{}
		}
		r.columnIndex = make(map[string]*Column, len(r.Columns))
		for _, col := range r.Columns {
			r.columnIndex[col.Name] = col
		}
		c.Relations[r.Schema][r.Name] = r
	}
	for _, f := range cat.Functions {
		if c.Functions[f.Schema] == nil {
			c.Functions[f.Schema] = map[string][]*Function{}
		}
		c.Functions[f.Schema][f.Name] = append(c.Functions[f.Schema][f.Name], f)
	}

	d := newDeriver(c, cat)
	d.setKeys()
	rels := d.foreignKeyRelationships()
	rels = append(rels, junctionRelationships(rels, d.primaryKey)...)
	rels = append(rels, inverses(rels)...)
	computed := d.computed()

	overridden := make(map[[2]QualifiedName]bool, len(computed))
	for _, r := range computed {
		overridden[[2]QualifiedName{r.Table, functionName(r)}] = true
	}
	for _, r := range rels {
		if exposed[r.Table.Schema] {
			c.relationshipKeys[relationshipKey{r.Table, r.ForeignTable.Schema}] = true
		}
		if !exposed[r.Table.Schema] || !exposed[r.ForeignTable.Schema] ||
			r.Junction != nil && !exposed[r.Junction.Table.Schema] ||
			overridden[[2]QualifiedName{r.Table, r.ForeignTable}] {
			continue
		}
		c.relationships[r.Table] = append(c.relationships[r.Table], r)
	}
	for _, r := range computed {
		c.relationshipKeys[relationshipKey{r.Table, r.Function.Schema}] = true
		c.relationships[r.Table] = append(c.relationships[r.Table], r)
	}
	for _, list := range c.relationships {
		slices.SortFunc(list, compareRelationships)
	}
	return c
}

// deriver holds the indexes relationship derivation works from.
type deriver struct {
	c   *Cache
	cat *Catalog
	// keys by table, in any schema.
	keys map[QualifiedName][]Key
	// views maps an exposed view to, per base table and column, the view
	// columns showing it, in the view's column order.
	views map[QualifiedName]map[QualifiedName]map[string][]string
	// viewsOver lists, per base table, the exposed views showing any of
	// its columns, sorted.
	viewsOver map[QualifiedName][]QualifiedName
}

func newDeriver(c *Cache, cat *Catalog) *deriver {
	d := &deriver{
		c:         c,
		cat:       cat,
		keys:      map[QualifiedName][]Key{},
		views:     map[QualifiedName]map[QualifiedName]map[string][]string{},
		viewsOver: map[QualifiedName][]QualifiedName{},
	}
	for _, k := range cat.Keys {
		d.keys[k.Table] = append(d.keys[k.Table], k)
	}
	// Order each view's columns by position so that a base column shown
	// twice lists its view columns in order, as PostgREST expands them.
	vcs := slices.Clone(cat.ViewColumns)
	slices.SortStableFunc(vcs, func(a, b ViewColumn) int {
		if c := compareNames(a.View, b.View); c != 0 {
			return c
		}
		return d.position(a.View, a.Column) - d.position(b.View, b.Column)
	})
	for _, vc := range vcs {
		byTable := d.views[vc.View]
		if byTable == nil {
			byTable = map[QualifiedName]map[string][]string{}
			d.views[vc.View] = byTable
		}
		cols := byTable[vc.Table]
		if cols == nil {
			cols = map[string][]string{}
			byTable[vc.Table] = cols
			d.viewsOver[vc.Table] = append(d.viewsOver[vc.Table], vc.View)
		}
		cols[vc.TableColumn] = append(cols[vc.TableColumn], vc.Column)
	}
	return d
}

func (d *deriver) position(view QualifiedName, column string) int {
	if r, ok := d.c.Relation(view.Schema, view.Name); ok {
		if col, ok := r.columnIndex[column]; ok {
			return col.Position
		}
	}
	return 0
}

// setKeys sets the exposed tables' keys and the exposed views' inferred
// primary keys.
func (d *deriver) setKeys() {
	for _, r := range d.cat.Relations {
		name := QualifiedName{r.Schema, r.Name}
		if r.IsView() {
			r.ViewPrimaryKey = d.viewPrimaryKey(name)
			continue
		}
		keys := d.keys[name]
		if len(keys) == 0 {
			continue
		}
		r.PrimaryKey, r.UniqueKeys = nil, nil
		for _, k := range keys {
			if k.Primary {
				r.PrimaryKey = slices.Clone(k.Columns)
			} else {
				r.UniqueKeys = append(r.UniqueKeys, slices.Clone(k.Columns))
			}
		}
	}
}

// viewPrimaryKey is what PostgREST takes for a view's primary key: for
// every base table whose primary key the view shows completely, the view
// columns showing it (the first, when a column is shown twice).
func (d *deriver) viewPrimaryKey(view QualifiedName) []string {
	var pk []string
	for _, table := range sortedKeys(d.views[view]) {
		for _, k := range d.keys[table] {
			if !k.Primary {
				continue
			}
			if opts, ok := d.viewKey(view, table, k.Columns); ok {
				for _, o := range opts {
					pk = append(pk, o[0])
				}
			}
		}
	}
	return pk
}

// primaryKey is the primary key of a table in any schema, or the inferred
// one of an exposed view.
func (d *deriver) primaryKey(name QualifiedName) []string {
	if r, ok := d.c.Relation(name.Schema, name.Name); ok && r.IsView() {
		return r.ViewPrimaryKey
	}
	for _, k := range d.keys[name] {
		if k.Primary {
			return k.Columns
		}
	}
	return nil
}

// viewKey returns, for each of table's columns, the columns of view that
// show it; ok is false unless the view shows every one of them.
func (d *deriver) viewKey(view, table QualifiedName, columns []string) (opts [][]string, ok bool) {
	cols := d.views[view][table]
	if cols == nil {
		return nil, false
	}
	opts = make([][]string, len(columns))
	for i, col := range columns {
		if len(cols[col]) == 0 {
			return nil, false
		}
		opts[i] = cols[col]
	}
	return opts, true
}

// oneToOne says whether a foreign key's columns are exactly those of a
// primary key or unique constraint of its table, in any order.
func (d *deriver) oneToOne(fk ForeignKey) bool {
	for _, k := range d.keys[fk.Table] {
		if len(k.Columns) != len(fk.Columns) {
			continue
		}
		all := true
		for _, p := range fk.Columns {
			if !slices.Contains(k.Columns, p[0]) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// foreignKeyRelationships turns every foreign key into its M2O (or O2O)
// relationship and adds the same relationship for every exposed view that
// shows all the key's columns: view to table, table to view and view to
// view. A view showing a key column several times gets one relationship
// per choice of columns.
func (d *deriver) foreignKeyRelationships() []*Relationship {
	var rels []*Relationship
	for _, fk := range d.cat.ForeignKeys {
		card := M2O
		if d.oneToOne(fk) {
			card = O2O
		}
		rel := func(table, foreign QualifiedName, cols [][2]string) *Relationship {
			return &Relationship{
				Table: table, ForeignTable: foreign, IsSelf: table == foreign,
				Cardinality: card, Constraint: fk.Constraint, Columns: cols,
			}
		}
		local := make([]string, len(fk.Columns))
		referenced := make([]string, len(fk.Columns))
		for i, p := range fk.Columns {
			local[i], referenced[i] = p[0], p[1]
		}
		rels = append(rels, rel(fk.Table, fk.ForeignTable, slices.Clone(fk.Columns)))

		type viewCols struct {
			view QualifiedName
			cols []string
		}
		var froms, tos []viewCols
		for _, v := range d.viewsOver[fk.Table] {
			if opts, ok := d.viewKey(v, fk.Table, local); ok {
				for _, cols := range expand(opts) {
					froms = append(froms, viewCols{v, cols})
				}
			}
		}
		for _, v := range d.viewsOver[fk.ForeignTable] {
			if opts, ok := d.viewKey(v, fk.ForeignTable, referenced); ok {
				for _, cols := range expand(opts) {
					tos = append(tos, viewCols{v, cols})
				}
			}
		}
		for _, f := range froms {
			r := rel(f.view, fk.ForeignTable, zipPairs(f.cols, referenced))
			r.IsSelf, r.TableIsView = false, true
			rels = append(rels, r)
		}
		for _, t := range tos {
			r := rel(fk.Table, t.view, zipPairs(local, t.cols))
			r.IsSelf, r.ForeignTableIsView = false, true
			rels = append(rels, r)
		}
		for _, f := range froms {
			for _, t := range tos {
				r := rel(f.view, t.view, zipPairs(f.cols, t.cols))
				r.TableIsView, r.ForeignTableIsView = true, true
				rels = append(rels, r)
			}
		}
	}
	return rels
}

// junctionRelationships finds the M2M relationships: a table (or view)
// with many-to-one relationships through two different foreign keys whose
// columns are all part of its primary key is a junction between their two
// foreign tables, in both directions, and between a table and itself when
// both keys reference it. One-to-one keys and unique constraints do not
// make junctions, as in PostgREST.
func junctionRelationships(rels []*Relationship, primaryKey func(QualifiedName) []string) []*Relationship {
	byJunction := map[QualifiedName][]*Relationship{}
	var order []QualifiedName
	for _, r := range rels {
		if r.Cardinality != M2O {
			continue
		}
		if byJunction[r.Table] == nil {
			order = append(order, r.Table)
		}
		byJunction[r.Table] = append(byJunction[r.Table], r)
	}
	var m2m []*Relationship
	for _, j := range order {
		list := byJunction[j]
		if len(list) < 2 {
			continue
		}
		pk := primaryKey(j)
		if len(pk) == 0 {
			continue
		}
		inKey := func(r *Relationship) bool {
			for _, p := range r.Columns {
				if !slices.Contains(pk, p[0]) {
					return false
				}
			}
			return true
		}
		for _, a := range list {
			if !inKey(a) {
				continue
			}
			for _, b := range list {
				if a.Constraint == b.Constraint || !inKey(b) {
					continue
				}
				m2m = append(m2m, &Relationship{
					Table: a.ForeignTable, ForeignTable: b.ForeignTable,
					IsSelf:      a.ForeignTable == b.ForeignTable,
					TableIsView: a.ForeignTableIsView, ForeignTableIsView: b.ForeignTableIsView,
					Cardinality: M2M,
					Junction: &Junction{
						Table:       j,
						Constraint1: a.Constraint, Constraint2: b.Constraint,
						SourceColumns: swapPairs(a.Columns), TargetColumns: swapPairs(b.Columns),
					},
				})
			}
		}
	}
	return m2m
}

// inverses are the foreign keys seen from the referenced side: O2M for
// M2O, and the other side of O2O.
func inverses(rels []*Relationship) []*Relationship {
	var inv []*Relationship
	for _, r := range rels {
		var card Cardinality
		switch r.Cardinality {
		case M2O:
			card = O2M
		case O2O:
			card = O2O
		default:
			continue
		}
		inv = append(inv, &Relationship{
			Table: r.ForeignTable, ForeignTable: r.Table, IsSelf: r.IsSelf,
			TableIsView: r.ForeignTableIsView, ForeignTableIsView: r.TableIsView,
			Cardinality: card, Constraint: r.Constraint, Columns: swapPairs(r.Columns),
			IsParent: card == O2O && !r.IsParent,
		})
	}
	return inv
}

// computed indexes computed columns and returns the computed
// relationships: functions of an exposed schema whose only parameter is
// an exposed relation's row type. One returning a single value is a
// computed column when it lives in the relation's schema; one returning
// rows of an exposed relation is a computed relationship.
func (d *deriver) computed() []*Relationship {
	var rels []*Relationship
	for _, f := range d.cat.Functions {
		if len(f.Params) != 1 || f.ArgRelation == (QualifiedName{}) {
			continue
		}
		table, ok := d.c.Relation(f.ArgRelation.Schema, f.ArgRelation.Name)
		if !ok {
			continue
		}
		if !f.Returns.Set && f.Returns.Shape != ReturnsVoid && f.Schema == table.Schema {
			cols := d.c.computedColumns[f.ArgRelation]
			if cols == nil {
				cols = map[string]*Function{}
				d.c.computedColumns[f.ArgRelation] = cols
			}
			cols[f.Name] = f
		}
		if f.Returns.RelationName == "" {
			continue
		}
		foreign, ok := d.c.Relation(f.Returns.RelationSchema, f.Returns.RelationName)
		if !ok {
			continue
		}
		ft := QualifiedName{foreign.Schema, foreign.Name}
		rels = append(rels, &Relationship{
			Table: f.ArgRelation, ForeignTable: ft, IsSelf: f.ArgRelation == ft,
			TableIsView: table.IsView(), ForeignTableIsView: foreign.IsView(),
			Cardinality: Computed, Function: f,
		})
	}
	return rels
}

// expand lists every choice of one item per position.
func expand(opts [][]string) [][]string {
	out := [][]string{nil}
	for _, o := range opts {
		next := make([][]string, 0, len(out)*len(o))
		for _, prefix := range out {
			for _, item := range o {
				next = append(next, append(slices.Clone(prefix), item))
			}
		}
		out = next
	}
	return out
}

func zipPairs(a, b []string) [][2]string {
	pairs := make([][2]string, len(a))
	for i := range a {
		pairs[i] = [2]string{a[i], b[i]}
	}
	return pairs
}

func swapPairs(pairs [][2]string) [][2]string {
	out := make([][2]string, len(pairs))
	for i, p := range pairs {
		out[i] = [2]string{p[1], p[0]}
	}
	return out
}

func sortedKeys[V any](m map[QualifiedName]V) []QualifiedName {
	keys := make([]QualifiedName, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareNames)
	return keys
}
