package schemacache

import "sort"

// relationshipKey is a key of PostgREST's index of relationships: a
// relation and the schema of what it relates to.
type relationshipKey struct {
	table  QualifiedName
	schema string
}

// HasRelationshipsIndexed says whether PostgREST's index of relationships
// has schema.table with schema: whether the table relates to a relation
// of its own schema, even only through a junction the cache leaves out.
// PGRST200's hint then suggests another embedded name rather than
// another table.
func (c *Cache) HasRelationshipsIndexed(schema, table string) bool {
	return c.relationshipKeys[relationshipKey{QualifiedName{schema, table}, schema}]
}

// RelationshipSources names, sorted, the relations that PostgREST's index
// of relationships has with schema: the tables PostgREST's PGRST200 hint
// looks among when the embedding table itself is not indexed.
func (c *Cache) RelationshipSources(schema string) []string {
	seen := map[string]bool{}
	var names []string
	for k := range c.relationshipKeys {
		if k.schema == schema && !seen[k.table.Name] {
			seen[k.table.Name] = true
			names = append(names, k.table.Name)
		}
	}
	sort.Strings(names)
	return names
}
