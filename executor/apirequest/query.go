package apirequest

// The query string as PostgREST reads it: select, filters, logic trees,
// order, limit/offset per embedding level, columns, on_conflict and the
// arguments of a function called with GET. ParseQuery builds a Query from
// the raw query string; it knows the syntax only, never the schema, so
// names are not checked and values are not typed here.

// Query is the parsed query string.
type Query struct {
	// Select is the select parameter as a tree. Without a select
	// parameter it is the single item *; "select=" gives an empty,
	// non-nil list (which the planner reads as *, as PostgREST does).
	Select []SelectItem
	// Filters are the column filters, in query-string order. A filter
	// whose EmbedPath is empty applies to the root resource.
	Filters []Filter
	// Logic holds the and/or parameters, in query-string order.
	Logic []LogicTree
	// Order holds the order parameters, in query-string order.
	Order []OrderSpec
	// Ranges holds limit and offset per embedding level, keyed by the
	// embed path joined with "." ("" for the root, "tasks",
	// "tasks.subtasks"). A level without limit or offset has no entry.
	// The root entry still has to pass through RootRange, which applies
	// the Range header and reports PGRST103.
	Ranges map[string]Range
	// Columns is the columns parameter, nil when absent. Names are in
	// query-string order with repeats dropped.
	Columns []string
	// OnConflict is the on_conflict parameter, nil when absent.
	OnConflict []string
	// RPCParams are the function arguments of a GET or HEAD on a
	// function (ParseRPCQuery), in query-string order, repeated names
	// kept. ParseQuery leaves it empty.
	RPCParams []Param
}

// Field is a column, optionally followed by a JSON path:
// data->a->>b is Field{"data", [{"->", "a"}, {"->>", "b"}]}.
type Field struct {
	Name     string
	JSONPath []JSONStep
}

// JSONStep is one -> or ->> step of a JSON path.
type JSONStep struct {
	// Arrow is "->" or "->>".
	Arrow string
	// Key is the object key, or for an array index the integer as
	// written without a + sign ("0", "-1").
	Key string
	// IsIndex says Key is an array index (data->0), which the SQL
	// generator passes as an integer rather than a text key.
	IsIndex bool
}

// SelectKind says what a select item is.
type SelectKind int

// Select item kinds.
const (
	// SelectStar is *: every column.
	SelectStar SelectKind = iota
	// SelectColumn is a column or JSON path, with optional alias and cast.
	SelectColumn
	// SelectAggregate is count() (Field.Name "*") or field.agg().
	SelectAggregate
	// SelectEmbed is an embedded resource: name(...), alias:name(...),
	// name!hint(...), name!inner(...).
	SelectEmbed
	// SelectSpread is a spread embedded resource: ...name(...).
	SelectSpread
)

// SelectItem is one element of the select tree.
type SelectItem struct {
	Kind SelectKind
	// Field is the column (SelectColumn, SelectAggregate; "*" for SelectStar
	// and count()).
	Field Field
	// Alias is the output name (alias:...); spreads take none.
	Alias string
	// Cast is the ::type after the field; for an aggregate it applies to
	// the aggregate's input. The type name holds only letters, digits,
	// _, $ and inner spaces: the grammar admits nothing else, so the SQL
	// generator may splice it.
	Cast string
	// Aggregate is count, sum, avg, max or min (SelectAggregate only).
	Aggregate string
	// AggregateCast is the ::type after the aggregate (count()::text,
	// col.sum()::int). The grammar also accepts a second cast after a
	// plain column (col::text::int); it is kept here as parsed and means
	// something only with an aggregate.
	AggregateCast string
	// Relation is the embedded table, view or function (SelectEmbed,
	// SelectSpread).
	Relation string
	// Hint disambiguates the relationship: a foreign key name or column
	// (name!hint).
	Hint string
	// JoinType is "inner", "left" or "" (name!inner).
	JoinType string
	// Children is the embedded resource's select (non-nil for embeds and
	// spreads, possibly empty: name()).
	Children []SelectItem
}

// Filter is one column filter: key=[not.]op[(quantifier)|(language)].value.
type Filter struct {
	// EmbedPath names the embedded resources, from the root, whose rows
	// the filter applies to (tasks.name=eq.x: ["tasks"]). Empty for the
	// root. Inside a LogicTree it is always empty: the tree's own
	// EmbedPath applies to every filter in it.
	EmbedPath []string
	Field     Field
	// Negated is the not. prefix.
	Negated bool
	// Op is one of eq neq gt gte lt lte like ilike match imatch in is
	// isdistinct fts plfts phfts wfts cs cd ov sl sr nxr nxl adj.
	Op string
	// Quantifier is "any" or "all" for eq(any), like(all) and the other
	// quantifiable operators (eq gt gte lt lte like ilike match imatch).
	Quantifier string
	// Language is the text-search configuration of fts(english) and the
	// other fts operators.
	Language string
	// Value is the operand as text, every operator but in. For like and
	// ilike every * has already become %. For cs, cd, ov and the
	// quantified operators it is the array or range literal as written
	// ({1,2}, [1,5)), which PostgreSQL parses against the column's type.
	// For is it is null, not_null, true, false or unknown, lower case.
	Value string
	// Values are the elements of in.(a,b,"c,d"): double quotes removed,
	// backslash escapes resolved. in.() gives one empty element, as in
	// PostgREST.
	Values []string
}

// LogicTree is an and/or parameter: or=(a.eq.1,b.gt.2), not.and=(...),
// tasks.or=(...).
type LogicTree struct {
	// EmbedPath as in Filter; set on top-level trees only.
	EmbedPath []string
	Negated   bool
	// Op is "and" or "or".
	Op       string
	Children []LogicNode
}

// LogicNode is one element of a LogicTree: exactly one of Filter and Tree
// is set.
type LogicNode struct {
	Filter *Filter
	Tree   *LogicTree
}

// OrderSpec is one order parameter: order=... or tasks.order=...
type OrderSpec struct {
	EmbedPath []string
	Terms     []OrderTerm
}

// OrderTerm is one comma-separated element of an order parameter.
type OrderTerm struct {
	// Relation is set for ordering by an embedded to-one resource's
	// column: order=client(name).desc.
	Relation string
	Field    Field
	// Direction is "asc", "desc" or "".
	Direction string
	// Nulls is "first", "last" or "".
	Nulls string
}

// Param is a function argument from the query string of a GET on a
// function.
type Param struct {
	Name, Value string
}
