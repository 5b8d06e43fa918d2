package executor

import (
	"testing"

	"github.com/pgrest/caddy-pgrest/executor/plan"
)

func TestLegacyNamesWarning(t *testing.T) {
	tests := []struct {
		name   string
		embeds []*plan.Embed
		want   string
	}{
		{"one replacement, in PostgREST v16's words",
			[]*plan.Embed{{Relation: "tasks", Name: "the_tasks"}},
			"299 pgrest \"Embedded resource was referenced by relation name even though it has an alias. " +
				"This is deprecated and will stop working in a future release. " +
				"Update `tasks` to `the_tasks` in query string filters, orders or limits.\""},
		{"several replacements are comma-separated in one header",
			[]*plan.Embed{{Relation: "films", Name: "all_films"}, {Relation: "awards", Name: "awards_2026"}},
			"299 pgrest \"Embedded resource was referenced by relation name even though it has an alias. " +
				"This is deprecated and will stop working in a future release. " +
				"Update `films` to `all_films`, `awards` to `awards_2026` in query string filters, orders or limits.\""},
		{"a quote or backslash in a name cannot end the quoted text",
			[]*plan.Embed{{Relation: `ta"sks`, Name: `a\b`}},
			"299 pgrest \"Embedded resource was referenced by relation name even though it has an alias. " +
				"This is deprecated and will stop working in a future release. " +
				"Update `ta\\\"sks` to `a\\\\b` in query string filters, orders or limits.\""},
		{"control characters become spaces",
			[]*plan.Embed{{Relation: "t\r\nx", Name: "a"}},
			"299 pgrest \"Embedded resource was referenced by relation name even though it has an alias. " +
				"This is deprecated and will stop working in a future release. " +
				"Update `t  x` to `a` in query string filters, orders or limits.\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := legacyNamesWarning(tt.embeds); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
