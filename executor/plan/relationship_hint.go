package plan

import "github.com/pgrest/caddy-pgrest/executor/schemacache"

// relationshipHint is PGRST200's hint, as PostgREST words it. When the
// parent relates to relations of the schema (even only through a junction
// in a schema not exposed, which embeds nothing), it suggests the related
// table most like child, never child itself (then the embed hint is what
// failed), and nothing when none is alike; otherwise the table with
// relationships most like the parent. The names are those of the related
// tables, computed relationships included by the table their function
// returns.
func relationshipHint(cache *schemacache.Cache, schemaName, parent, child string) string {
	if cache.HasRelationshipsIndexed(schemaName, parent) {
		var children []string
		for _, r := range cache.Relationships(schemaName, parent) {
			if relatesIn(r, schemaName) {
				children = append(children, r.ForeignTable.Name)
			}
		}
		for _, m := range newFuzzySet(children).get(child, relationshipHintScore) {
			if m.score < 1 {
				return "Perhaps you meant '" + m.name + "' instead of '" + child + "'."
			}
		}
		return ""
	}
	if m := newFuzzySet(cache.RelationshipSources(schemaName)).get(parent, relationshipHintScore); len(m) > 0 {
		return "Perhaps you meant '" + m[0].name + "' instead of '" + parent + "'."
	}
	return ""
}

// relatesIn says whether PostgREST indexes r under schemaName: by its
// function's schema for a computed relationship, else by its foreign
// table's.
func relatesIn(r *schemacache.Relationship, schemaName string) bool {
	if r.Function != nil {
		return r.Function.Schema == schemaName
	}
	return r.ForeignTable.Schema == schemaName
}
