package plan

import "github.com/pgrest/caddy-pgrest/executor/schema"

// relationshipHint is PGRST200's hint, as PostgREST words it. When the
// parent has relationships in the schema, it suggests the related table
// most like child (never child itself: then the embed hint is what
// failed); when it has none, the table with relationships most like the
// parent. The names are those of the related tables, computed
// relationships included by the table their function returns.
func relationshipHint(cache *schema.Cache, schemaName, parent, child string) string {
	var children []string
	for _, r := range cache.Relationships(schemaName, parent) {
		if r.ForeignTable.Schema == schemaName {
			children = append(children, r.ForeignTable.Name)
		}
	}
	if len(children) > 0 {
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
