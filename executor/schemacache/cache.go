// Package schemacache is pgrest's schema cache: it queries the database for
// what the exposed schemas hold (relations, columns, keys, functions, the
// relationships resource embedding follows, media handlers, data
// representations, role settings) and keeps the answer as an immutable
// value. Load sends those catalog queries, as the authenticator, in one
// round trip (load.go, pipeline.go); Build turns rows already read (a
// Catalog) into a Cache, which is how tests make one without a database.
// A reload builds a new Cache and the executor swaps it in atomically;
// nothing here is ever mutated after Load (or Build) returns.
package schemacache

// Cache is one snapshot of the exposed schemas.
type Cache struct {
	// ServerVersionNum is server_version_num (150004 for 15.4).
	ServerVersionNum int
	// Relations by schema, then name.
	Relations map[string]map[string]*Relation
	// Functions by schema, then name; overloads share a name.
	Functions map[string]map[string][]*Function
	// RoleSettings are, by role name, the settings PostgreSQL would give
	// the role at login (ALTER ROLE ... SET, the database-specific ones
	// winning) and that a request switched to it runs with; pgrest's own
	// limits (pgrst.db_max_cost, pgrst.rate_limit.*) are not among them.
	RoleSettings map[string][]Setting
	// PostGISSchema is the schema PostGIS is installed in, "" without it.
	PostGISSchema string
	// limits are the roles' own limits, which their settings give
	// (rolelimits.go); RoleSettings leaves those settings out.
	limits roleLimits

	// mediaHandlers are the media type handlers (see MediaHandler).
	mediaHandlers map[MediaHandlerKey]*MediaHandler
	// relationships holds every relationship starting at a relation,
	// sorted as PostgREST sorts them (the order of PGRST201 details).
	relationships map[QualifiedName][]*Relationship
	// relationshipKeys are the keys of PostgREST's index of relationships,
	// which PGRST200's hint reads: an exposed relation with the schema of
	// each relation (or computed relationship's function) it relates to,
	// counting the relationships the cache leaves out (to a schema not
	// exposed, or through a junction in one).
	relationshipKeys map[relationshipKey]bool
	// computedColumns maps a relation to its computed columns by name.
	computedColumns map[QualifiedName]map[string]*Function
	// representations are the data representations by source and target
	// type; domains are the Catalog's.
	representations map[[2]string]*Representation
	domains         map[string]string
}

// QualifiedName names a relation or function by schema and name.
type QualifiedName struct {
	Schema, Name string
}

// String renders schema.name unquoted, for messages and logs (never SQL).
func (q QualifiedName) String() string { return q.Schema + "." + q.Name }

// Relation is a table, view, materialized view or foreign table.
type Relation struct {
	Schema      string
	Name        string
	Kind        RelKind
	Description string
	// Columns in attribute order.
	Columns []*Column
	// PrimaryKey lists the primary key's column names (empty for views).
	PrimaryKey []string
	// UniqueKeys lists the unique constraints' columns, each in key order
	// (the primary key is not repeated here; empty for views).
	UniqueKeys [][]string
	// ViewPrimaryKey is, for a view, the primary key PostgREST infers: the
	// view columns exposing every column of a base table's primary key
	// (the first such column when one is exposed twice). Empty for tables.
	ViewPrimaryKey []string
	// Insertable/Updatable/Deletable say what writes the relation takes
	// (views may refuse some).
	Insertable, Updatable, Deletable bool

	columnIndex map[string]*Column
	oid         uint32 // pg_class.oid, while Load traces views
}

// Column looks a column up by name.
func (r *Relation) Column(name string) (*Column, bool) {
	c, ok := r.columnIndex[name]
	return c, ok
}

// RelKind is pg_class.relkind.
type RelKind byte

// Relation kinds pgrest exposes.
const (
	KindTable            RelKind = 'r'
	KindPartitionedTable RelKind = 'p'
	KindView             RelKind = 'v'
	KindMaterializedView RelKind = 'm'
	KindForeignTable     RelKind = 'f'
)

// Column is one attribute of a relation.
type Column struct {
	Name string
	// Type is format_type() of the column: a catalog-rendered type name,
	// safe to splice as a cast target.
	Type        string
	Nullable    bool
	Default     string
	HasDefault  bool
	MaxLength   int
	EnumValues  []string
	Description string
	Position    int

	// InsertDefault is the expression, as the catalog renders it, that
	// PostgreSQL fills a missing value with on INSERT: the column's
	// default, nextval of an identity's sequence, or the default of the
	// column's domain; "" when there is none (a generated column too).
	// Prefer: missing=default writes it where a row lacks the key.
	InsertDefault string
}

// Function is one function of an exposed schema.
type Function struct {
	Schema string
	Name   string
	OID    uint32
	// Params are the input parameters, in declaration order.
	Params []Param
	// Returns describes the result.
	Returns Return
	// Volatility is 'i' immutable, 's' stable or 'v' volatile.
	Volatility byte
	// Settings are the function's SET clauses (proconfig).
	Settings    []Setting
	Description string
	// ArgRelation names the relation whose row type is the function's only
	// input parameter, when it has exactly one and it is a relation's row
	// type (in any schema); zero otherwise. Such a function is a computed
	// column or a computed relationship of that relation.
	ArgRelation QualifiedName
	// Rows is pg_proc.prorows, the planner's estimate of a set-returning
	// function's rows; ROWS 1 makes a computed relationship to-one.
	Rows float32
	// Inlinable says PostgreSQL may put the function's query in place of
	// its call (a set-returning SQL function, neither strict, volatile,
	// security definer nor with SET clauses): reading its call twice then
	// costs what its query costs, where another function runs twice.
	Inlinable bool
}

// Param is one input parameter of a function.
type Param struct {
	Name string
	// Type is format_type() of the parameter, for people: messages and
	// the OpenAPI document. SQL names the type by the three fields below.
	Type string
	// TypeSchema and TypeName are the catalog's names of the type, of its
	// element type for an array; TypeArrayDims is 1 for an array (the
	// catalog has one array type per element type, whatever the
	// dimensions), else 0.
	TypeSchema    string
	TypeName      string
	TypeArrayDims int
	HasDefault    bool
	Variadic      bool
}

// ReturnShape is how a function's result becomes JSON.
type ReturnShape int

// Function result shapes.
const (
	// ReturnsScalar: a base, domain, enum, range or array type, or a
	// record without OUT parameters.
	ReturnsScalar ReturnShape = iota
	// ReturnsComposite: a row type, record with OUT parameters or TABLE.
	ReturnsComposite
	// ReturnsVoid: no result.
	ReturnsVoid
)

// Return describes a function's result.
type Return struct {
	Shape ReturnShape
	// Set is true for SETOF and TABLE functions.
	Set bool
	// Type is format_type() of the declared return type.
	Type string
	// Pseudo is true for a pseudo-type such as record: such a scalar is
	// called in a select list, as FROM would want a column definition list.
	Pseudo bool
	// Relation names the table or view whose row type is returned, when
	// it is one of an exposed schema's; embedding and filters use it.
	RelationSchema, RelationName string
}

// IsView says whether the relation is a view or materialized view, the
// kinds whose relationships come from their base tables.
func (r *Relation) IsView() bool { return r.Kind == KindView || r.Kind == KindMaterializedView }

// Relation returns the relation schema.name, if it is exposed.
func (c *Cache) Relation(schema, name string) (*Relation, bool) {
	r, ok := c.Relations[schema][name]
	return r, ok
}

// FunctionsNamed returns every overload of schema.name.
func (c *Cache) FunctionsNamed(schema, name string) []*Function {
	return c.Functions[schema][name]
}

// Setting is a configuration parameter and its value.
type Setting struct {
	Name, Value string
}
