// Package schema is pgrest's schema cache: what the exposed schemas hold
// (relations, columns, keys, functions), read from the PostgreSQL catalog
// once and kept as an immutable value. A reload builds a new Cache and the
// executor swaps it in atomically; nothing here is ever mutated after Load.
package schema

// Cache is one snapshot of the exposed schemas.
type Cache struct {
	// ServerVersionNum is server_version_num (150004 for 15.4).
	ServerVersionNum int
	// Relations by schema, then name.
	Relations map[string]map[string]*Relation
	// Functions by schema, then name; overloads share a name.
	Functions map[string]map[string][]*Function
}

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
	// Insertable/Updatable/Deletable say what writes the relation takes
	// (views may refuse some).
	Insertable, Updatable, Deletable bool

	columnIndex map[string]*Column
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
	Volatility  byte
	Variadic    bool
	Description string
}

// Param is one input parameter of a function.
type Param struct {
	Name string
	// Type is format_type() of the parameter.
	Type       string
	HasDefault bool
	Variadic   bool
}

// RequiredParams counts the parameters without defaults.
func (f *Function) RequiredParams() int {
	n := 0
	for _, p := range f.Params {
		if !p.HasDefault {
			n++
		}
	}
	return n
}

// ReturnShape is how a function's result becomes JSON.
type ReturnShape int

// Function result shapes.
const (
	// ReturnsScalar: a base, domain, enum, range or array type.
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
	// Relation names the table or view whose row type is returned, when
	// it is one of an exposed schema's; embedding and filters use it.
	RelationSchema, RelationName string
}

// Relation returns the relation schema.name, if it is exposed.
func (c *Cache) Relation(schema, name string) (*Relation, bool) {
	r, ok := c.Relations[schema][name]
	return r, ok
}

// FunctionsNamed returns every overload of schema.name.
func (c *Cache) FunctionsNamed(schema, name string) []*Function {
	return c.Functions[schema][name]
}
