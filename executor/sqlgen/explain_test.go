package sqlgen_test

import (
	"slices"
	"testing"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

func TestExplainWrapsTheStatementWithConstantOptions(t *testing.T) {
	main := sqlgen.Statement{SQL: sqltext.Fmt("select %s", sqltext.Param(1)), Args: [][]byte{[]byte("x")}}
	all := []apirequest.PlanOption{apirequest.PlanAnalyze, apirequest.PlanVerbose, apirequest.PlanSettings,
		apirequest.PlanBuffers, apirequest.PlanWAL}
	for _, tc := range []struct {
		name string
		plan apirequest.Plan
		want string
	}{
		{"text without options", apirequest.Plan{Format: apirequest.PlanText}, "EXPLAIN (FORMAT TEXT) select $1"},
		{"json without options", apirequest.Plan{Format: apirequest.PlanJSON}, "EXPLAIN (FORMAT JSON) select $1"},
		{"json with analyze", apirequest.Plan{Format: apirequest.PlanJSON, Options: all[:1]},
			"EXPLAIN (FORMAT JSON, ANALYZE) select $1"},
		{"every option", apirequest.Plan{Format: apirequest.PlanJSON, Options: all},
			"EXPLAIN (FORMAT JSON, ANALYZE, VERBOSE, SETTINGS, BUFFERS, WAL) select $1"},
		{"an option outside the list adds nothing", apirequest.Plan{Format: apirequest.PlanText, Options: []apirequest.PlanOption{99, -1}},
			"EXPLAIN (FORMAT TEXT) select $1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := sqlgen.Explain(main, tc.plan)
			if got.SQL.String() != tc.want {
				t.Errorf("SQL %q, want %q", got.SQL.String(), tc.want)
			}
			if !slices.EqualFunc(got.Args, main.Args, slices.Equal) {
				t.Errorf("args %q, want %q", got.Args, main.Args)
			}
		})
	}
}
