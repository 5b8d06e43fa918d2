package sqlgen_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
)

// TestStatementSize holds the room read gives a statement's builder to
// the statements of the golden cases: never less than the statement
// (which would allocate the text twice), and for the usual reads of the
// cost benchmarks within a few bytes of it, so that the text is
// allocated in the size class it needs.
func TestStatementSize(t *testing.T) {
	cache := schemacache.Build(goldenCatalog())
	tight := map[string]bool{}
	cases := goldenCases
	for _, c := range readCostCases {
		if c.name != "embed" {
			tight[c.name] = true
			cases = append(cases, goldenCase{name: c.name, target: c.target})
		}
	}
	for _, c := range cases {
		res := runCase(t, cache, c)
		p, opts := goldenPlan(t, cache, c)
		room, n := sqlgen.StatementSize(p, opts), res.main.SQL.Len()
		if room < n {
			t.Errorf("%s: room for %d bytes, the statement takes %d", c.name, room, n)
		}
		if tight[c.name] && room > n+32 {
			t.Errorf("%s: room for %d bytes, the statement takes only %d", c.name, room, n)
		}
	}
}

// goldenPlan is the plan and read options runCase renders for c.
func goldenPlan(t *testing.T, cache *schemacache.Cache, c goldenCase) (*plan.Read, sqlgen.ReadOptions) {
	t.Helper()
	path, rawQuery, _ := strings.Cut(c.target, "?")
	rel, _ := cache.Relation("api", strings.TrimPrefix(path, "/"))
	q, aerr := apirequest.ParseQuery(rawQuery)
	if aerr != nil {
		t.Fatal(aerr)
	}
	rep, aerr := apirequest.Negotiate(c.accept, readMedia)
	if aerr != nil {
		t.Fatal(aerr)
	}
	var prefs apirequest.Preferences
	if c.prefer != "" {
		if prefs, aerr = apirequest.ParsePreferences([]string{c.prefer}); aerr != nil {
			t.Fatal(aerr)
		}
	}
	rangeHeader := ""
	if c.method == "" || c.method == http.MethodGet {
		rangeHeader = c.rangeHeader
	}
	p, aerr := plan.BuildRead(cache, rel, q, plan.ReadOptions{
		MaxRows: c.maxRows, AggregatesEnabled: c.aggregates, RangeHeader: rangeHeader})
	if aerr != nil {
		t.Fatal(aerr)
	}
	return p, sqlgen.ReadOptions{Representation: rep, Count: prefs.Count, MaxRows: c.maxRows,
		NoBody: c.method == http.MethodHead}
}
