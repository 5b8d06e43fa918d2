// Package plan resolves a parsed request against the schema cache: which
// relation each name means, which relationship each embed follows, which
// column or computed column each field is. It is pure; sqlgen renders the
// result and the executor runs it.
package plan

import (
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// Read is the plan of one level of a read: the root relation or one
// embedded resource.
type Read struct {
	// Relation is what this level reads from.
	Relation *schemacache.Relation
	// Alias is the SQL correlation name of this level, unique in the
	// statement: the relation's name at the root, "<name>_<n>" below.
	Alias string
	// Fields are the output columns, in select order. Embeds hold the
	// resources embedded here, in select order too; Output interleaves
	// them as the client asked.
	Fields []Field
	Embeds []*Embed
	// Output lists the select items in order: each is a field or an embed.
	Output []OutputItem
	// Where holds the conditions of this level, all of which must hold.
	Where []Condition
	Order []OrderTerm
	// Range is the limit/offset of this level (the root's includes
	// db_max_rows and the Range header).
	Range apirequest.Range
	// GroupBy is true when aggregates are selected: the other fields
	// become the grouping keys.
	GroupBy bool
}

// OutputItem is one item of the output, in select order.
type OutputItem struct {
	Field *Field
	Embed *Embed
}

// ColumnRef names a value of a row: a column, possibly followed by a JSON
// path, or a computed column (a function of the row).
type ColumnRef struct {
	Column   string
	Computed *schemacache.Function
	JSONPath []apirequest.JSONStep
	// Type is the column's type as the catalog renders it ("" when the
	// column is unknown to the schema cache).
	Type string
	// Star is the whole row ("*").
	Star bool
	// ToJSON makes the value JSON before the JSON path applies
	// (to_jsonb), for a value that is not json or jsonb already: a
	// composite or an array, say. (Next to Star, the two take one word.)
	ToJSON bool
}

// Field is one selected value.
type Field struct {
	Ref ColumnRef
	// Name is the output key: the alias, else the aggregate's name, else
	// the last JSON key or the column.
	Name string
	// Cast is the requested ::type, checked by sqltext.ParseTypeName:
	// the only form in which a type from the request reaches SQL.
	Cast sqltext.TypeName
	// Aggregate is count, sum, avg, min or max; AggregateCast casts its
	// result. Count() with no column counts rows.
	Aggregate     string
	AggregateCast sqltext.TypeName
	// Format is the data representation that turns the column's domain
	// into JSON, nil when it has none. It applies before Cast.
	Format *schemacache.Representation
}

// Embed is an embedded resource.
type Embed struct {
	// Name is the output key (the alias, else the name used in select).
	Name string
	// Relation is the name used in select, before any alias.
	Relation string
	// LegacyName says a filter, order or limit named this aliased embed
	// by Relation rather than by its alias (see embedNamed).
	LegacyName   bool
	Relationship *schemacache.Relationship
	// Inner makes rows without a match disappear from the parent (!inner).
	Inner bool
	// Spread merges a to-one embed's fields into its parent (...).
	Spread bool
	Plan   *Read
}

// ToOne says whether the embed yields one object rather than an array.
func (e *Embed) ToOne() bool { return e.Relationship.ToOne() }

// Condition is a filter, a logic tree, or a null check on an embed.
type Condition struct {
	Negated bool
	// Filter is a column comparison.
	Filter *Filter
	// Op and Children make a tree: "and" or "or".
	Op       string
	Children []Condition
	// EmbedNull tests whether an embedded resource is absent (is.null).
	EmbedNull *Embed
}

// Filter compares a column with a value.
type Filter struct {
	Ref        ColumnRef
	Op         string
	Quantifier string
	Language   string
	Value      string
	Values     []string
	// Parse is the data representation that turns a query-string value
	// (text) into the column's domain, nil when it has none.
	Parse *schemacache.Representation
	// ToTsVector turns the value into a tsvector (to_tsvector) for a
	// full-text operator, for a value that is not one already.
	ToTsVector bool
}

// OrderTerm is one ORDER BY key. Embed, when set, is the to-one embed
// whose column orders the parent.
type OrderTerm struct {
	Ref       ColumnRef
	Embed     *Embed
	Direction string
	Nulls     string
}

// Shown says whether an embed is a key of its parent's rows. One that
// selects no field, neither itself nor through its embeds (name(), or
// name(other()) at any depth), only filters them, with !inner or is.null,
// and PostgREST leaves it out of the output.
func (e *Embed) Shown() bool { return e.Plan.selectsAny() }

// selectsAny says whether a level outputs a value: a field of its own or
// one of an embed's.
func (r *Read) selectsAny() bool {
	for _, it := range r.Output {
		if it.Field != nil || it.Embed.Shown() {
			return true
		}
	}
	return false
}

// Exposed lists the columns a level's query returns, by name: a star
// returns the relation's columns, a spread what its own level exposes.
func (r *Read) Exposed() []string {
	var names []string
	for _, it := range r.Output {
		switch {
		case it.Field != nil && it.Field.Ref.Star:
			for _, col := range r.Relation.Columns {
				names = append(names, col.Name)
			}
		case it.Field != nil:
			names = append(names, it.Field.Name)
		case it.Embed.Spread:
			names = append(names, it.Embed.Plan.Exposed()...)
		case it.Embed.Shown():
			names = append(names, it.Embed.Name)
		}
	}
	return names
}
