package read

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
)

// specCase is one "it" of a PostgREST spec (test/spec/Feature of PostgREST
// v16.2), named by its describe, context and it texts joined by "/", with
// the requests it makes and the bodies it expects, as the spec writes them.
type specCase struct {
	name string
	gets []specGet
}

// specGet is one GET of a spec case: its path, its status (200 when 0)
// and the JSON body the spec expects.
type specGet struct {
	path   string
	status int
	want   string
}

// runSpecCases runs each case as a subtest against s: every GET must answer
// the status, PostgREST's JSON Content-Type and a body equal to the spec's
// as JSON (numbers as values, objects' keys in any order, arrays in order,
// as the spec's json quasiquoter compares).
func runSpecCases(t *testing.T, s *server, cases []specCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, g := range c.gets {
				res := s.Get(t, g.path)
				if g.status != 0 && g.status != http.StatusOK {
					expectErrorBody(t, res, g.status, g.want)
					continue
				}
				if res.Status != http.StatusOK {
					t.Errorf("GET %s: status %d, want 200; body %s", g.path, res.Status, res.Body)
					continue
				}
				if ct := res.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
					t.Errorf("GET %s: Content-Type %q", g.path, ct)
				}
				var got, want any
				if err := json.Unmarshal(res.Body, &got); err != nil {
					t.Errorf("GET %s: body is not JSON: %v\n%s", g.path, err, res.Body)
					continue
				}
				if err := json.Unmarshal([]byte(g.want), &want); err != nil {
					t.Fatalf("bad expected JSON: %v\n%s", err, g.want)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("GET %s: body differs\n got: %s\nwant: %s", g.path, compactJSON(got), compactJSON(want))
				}
			}
		})
	}
}

// spreadsDB is the database of fixtures.SpreadsSQL, PostgREST's own fixture
// for its spread specs.
var spreadsDB = &extraDB{name: "pgrest_read_spreads", sql: fixtures.SpreadsSQL, timeout: time.Minute}

// startSpreadsServer serves spreads.sql with PostgREST's test configuration
// (baseCfg of its SpecHelper.hs: aggregates off), changed by lines.
func startSpreadsServer(t testing.TB, lines ...string) *server {
	t.Helper()
	base := []string{"db_uri " + spreadsDB.appDSN(t), "db_schemas api", "-db_aggregates_enabled"}
	return startServer(t, append(base, lines...)...)
}
