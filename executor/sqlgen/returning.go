package sqlgen

import (
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// returnedColumns are the columns of the written rows that the response
// read p uses, in the relation's column order: the selected columns,
// the parent side of each embed's join, and the ordering columns. A
// write returns only these, as PostgREST does, so a role needs SELECT
// on the columns it asks for and on no others. whole is true when the
// read needs the entire row: a star, a computed column or a computed
// relationship, which take the relation's row type.
func returnedColumns(rel *schemacache.Relation, p *plan.Read) (cols []string, whole bool) {
	need := map[string]bool{}
	ref := func(r plan.ColumnRef) {
		switch {
		case r.Star || r.Computed != nil:
			whole = true
		case r.Column != "":
			need[r.Column] = true
		}
	}
	for _, it := range p.Output {
		if it.Field != nil {
			ref(it.Field.Ref)
		}
	}
	for _, e := range p.Embeds {
		rs := e.Relationship
		switch {
		case rs.Function != nil:
			whole = true
		case rs.Junction != nil:
			for _, pair := range rs.Junction.SourceColumns {
				need[pair[0]] = true
			}
		default:
			for _, pair := range rs.Columns {
				need[pair[0]] = true
			}
		}
	}
	for _, t := range p.Order {
		if t.Embed == nil {
			ref(t.Ref)
		}
	}
	if whole {
		return nil, true
	}
	for _, c := range rel.Columns {
		if need[c.Name] {
			cols = append(cols, c.Name)
		}
	}
	return cols, false
}
