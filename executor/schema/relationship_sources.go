package schema

import "sort"

// RelationshipSources names, sorted, the relations that have a
// relationship to a relation of schema: the tables PostgREST's PGRST200
// hint looks among when the embedding table itself has none.
func (c *Cache) RelationshipSources(schema string) []string {
	seen := map[string]bool{}
	var names []string
	for from, rels := range c.relationships {
		for _, r := range rels {
			if r.ForeignTable.Schema == schema && !seen[from.Name] {
				seen[from.Name] = true
				names = append(names, from.Name)
			}
		}
	}
	sort.Strings(names)
	return names
}
