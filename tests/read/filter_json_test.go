package read

import "testing"

// TestFilterJSONPaths filters on JSON paths into jsonb (projects.settings,
// user_profiles.preferences) and json (events.payload) columns: keys,
// array indexes, -> against JSON literals and ->> against text.
func TestFilterJSONPaths(t *testing.T) {
	s := startServer(t)
	runIDsCases(t, s, []idsCase{
		{"->> compares a top-level key as text", "/projects?select=id&settings->>color=eq.blue", []int{2, 9}},
		{"->> four keys deep", "/projects?select=id&settings->notify->slack->>channel=eq.%23alpha", []int{2}},
		{"-> compares jsonb with a JSON literal", "/projects?select=id&settings->public=eq.true", []int{1}},
		{"->> of a boolean is its text", "/projects?select=id&settings->>public=eq.false", []int{12}},
		{"->> with an array index", "/projects?select=id&settings->labels->>0=eq.backend", []int{2}},
		{"->> with a negative array index", "/projects?select=id&settings->labels->>-1=eq.api", []int{2}},
		{"-> then ->> through an array of objects", "/projects?select=id&settings->milestones->1->>done=eq.false", []int{3}},
		{"->> compares as text, not as a number", "/projects?select=id&settings->limits->>tasks=lt.5", []int{7}},
		{"is null on a JSON path matches missing keys and JSON nulls", "/projects?select=id&settings->limits->>members=is.null&settings=not.is.null", []int{1, 2, 3, 5, 6, 7, 8, 9, 11, 12}},
		{"like on a JSON path", "/projects?select=id&settings->>color=like.*r*", []int{1, 3, 6, 11}},
		{"in on a JSON path", "/projects?select=id&settings->>color=in.(red,gray)", []int{1, 11}},
		{"cs on a JSON path", "/projects?select=id&settings->labels=cs.[%22cold%20chain%22]", []int{6}},
		{"not on a JSON path", "/projects?select=id&settings->>color=not.eq.green", []int{1, 2, 9, 11}},
		{"->> on a json column", "/events?select=id&payload->>path=eq./tasks", []int{14}},
		{"->> three keys deep on a json column", "/events?select=id&payload->filters->owner->>name=eq.bob", []int{3}},
		{"is null on a json column's key matches scalars, arrays and SQL NULL", "/events?select=id&payload->>referrer=is.null", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 15}},
		{"->> on a json column with a value holding reserved characters", "/events?select=id&payload->>referrer=eq.https://example.com/%3Fq%3Da,b", []int{11}},
		{"->> of an index into a top-level array", "/events?select=id&payload->>0=eq.1", []int{6}},
		{"-> and ->> mix indexes and keys on a json column", "/events?select=id&payload->1->error->>code=eq.E42", []int{7}},
		{"->> five keys deep into an array", "/events?select=id&payload->a->b->c->d->e->0->>f=eq.deepest", []int{13}},
		{"ilike on a json column's non-ASCII text", "/events?select=id&payload->>greeting=ilike.*GR%C3%9C%C3%9F*", []int{12}},
		{"->> three keys deep on another table, with the id aliased", "/user_profiles?select=id:user_id&preferences->notifications->digest->>frequency=eq.weekly", []int{8}},
	})
}
