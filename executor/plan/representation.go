package plan

import (
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// Data representations and the other type-driven rewrites of a value, as
// PostgREST's planner makes them (Plan.hs: withOutputFormat, withTextParse,
// withJsonParse, resolveTypeOrUnknown).

// outputFormat is the representation that formats a selected column as
// JSON. Only a plain column has one: a JSON path or a computed column
// yields another value than the domain's.
func (b *builder) outputFormat(ref ColumnRef) *schemacache.Representation {
	if ref.Type == "" || len(ref.JSONPath) > 0 || ref.Computed != nil {
		return nil
	}
	r, _ := b.cache.Representation(ref.Type, "json")
	return r
}

// textParse is the representation that parses a query-string value for a
// filter on ref.
func (b *builder) textParse(ref ColumnRef) *schemacache.Representation {
	if ref.Type == "" || len(ref.JSONPath) > 0 || ref.Computed != nil {
		return nil
	}
	r, _ := b.cache.Representation("text", ref.Type)
	return r
}

// parsesFilterValue says whether op's value goes through the column's
// text parser. PostgREST parses the values of the comparison operators
// (quantified or not) and of in; like and ilike (a pattern is no value of
// the domain), is, isdistinct and the full-text operators take their
// value as it is.
func parsesFilterValue(f *Filter) bool {
	switch f.Op {
	case "is", "isdistinct", "fts", "plfts", "phfts", "wfts", "like", "ilike":
		return false
	}
	return true
}

// JSONParsers are the representations that parse a request body's values
// for columns of rel, by column name: a write's payload goes through them.
func JSONParsers(cache *schemacache.Cache, rel *schemacache.Relation, columns []string) map[string]*schemacache.Representation {
	var out map[string]*schemacache.Representation
	for _, name := range columns {
		col, ok := rel.Column(name)
		if !ok {
			continue
		}
		if r, ok := cache.Representation("json", col.Type); ok {
			if out == nil {
				out = map[string]*schemacache.Representation{}
			}
			out[name] = r
		}
	}
	return out
}

// valueType is the type of the value ref names before any JSON path: the
// column's, or a computed column's result; "" when unknown.
func valueType(ref ColumnRef) string {
	if ref.Computed != nil {
		return ref.Computed.Returns.Type
	}
	return ref.Type
}

// needsToJSON says whether a JSON path on ref needs the value turned into
// JSON first (to_jsonb(col)->'key', as in PostgREST): a value of any type
// but json and jsonb. A value of unknown type (a column of a function's
// TABLE result) is turned too, as PostgREST turns it, so that a composite
// there takes arrows (JsonOperatorSpec "works when an RPC returns a
// dynamic TABLE with a composite type").
func needsToJSON(ref ColumnRef) bool {
	if len(ref.JSONPath) == 0 {
		return false
	}
	t := valueType(ref)
	return t != "json" && t != "jsonb"
}

// needsToTsVector says whether a full-text filter on ref needs the value
// turned into a tsvector (to_tsvector): a JSON path's value, or a value
// of a known type other than tsvector or a domain over it. A value of
// unknown type is left as it is: PostgreSQL matches text and tsvector
// alike against a tsquery.
func (b *builder) needsToTsVector(ref ColumnRef) bool {
	if len(ref.JSONPath) > 0 {
		return true
	}
	t := valueType(ref)
	return t != "" && b.cache.BaseType(t) != "tsvector"
}

// ftsOperators are the full-text search operators.
var ftsOperators = map[string]struct{}{"fts": {}, "plfts": {}, "phfts": {}, "wfts": {}}

// fieldCount is how many fields a level's select items make: one each,
// but a star lists every column when a column has a representation. The
// level reserves them up front, so that Output can point into Fields.
func (b *builder) fieldCount(rel *schemacache.Relation, items []apirequest.SelectItem) int {
	n := len(items)
	for _, it := range items {
		if it.Kind == apirequest.SelectStar && b.cache.HasOutputRepresentation(rel) {
			n += len(rel.Columns)
		}
	}
	return n
}
