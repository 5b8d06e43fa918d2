// Package read holds HTTP tests of pgrest's read API against the fixture
// tests/fixtures/read.sql, loaded once into a throwaway cluster.
package read

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// The fixture database, shared by every test of this package; its data is
// read-only: no test may change it.
var db *pgresttest.DB

// jwtSecret is the HS256 passphrase every default server verifies with.
const jwtSecret = "pgrest-read-tests-secret-long-enough-0123456789ab"

// TestMain loads fixtures.ReadSQL into a fresh database of a throwaway
// cluster and runs the tests.
func TestMain(m *testing.M) {
	db = pgresttest.MustSetUp("pgrest_read", pgresttest.ReadFixture)
	db.Run(m)
}

// startServer serves pgrest from a real Caddy config on a free loopback
// port: the fixture's schemas and roles, aggregates on, changed by lines:
// "db_max_rows 10" replaces the setting of the same name, "-name" removes
// it (see pgresttest.Start). Caddy runs one config at a time: starting a
// server stops the one running, so tests of this package do not run in
// parallel and start one server per top-level test. The server stops when
// the test ends.
func startServer(t testing.TB, lines ...string) *server {
	t.Helper()
	return pgresttest.Start(t, map[string]string{
		"db_uri":                db.DSNFor(fixtures.Authenticator, fixtures.AuthenticatorPassword),
		"db_schemas":            strings.Join(fixtures.ExposedSchemas(), " "),
		"db_anon_role":          fixtures.AnonRole,
		"jwt_secret":            jwtSecret,
		"db_aggregates_enabled": "true",
	}, lines...)
}

// server and response are pgresttest's.
type (
	server   = pgresttest.Server
	response = pgresttest.Response
)

// rows checks the response is 200 or 206 with a JSON array of objects and
// returns it.
func rows(t testing.TB, res *response) []map[string]any {
	t.Helper()
	if res.Status != http.StatusOK && res.Status != http.StatusPartialContent {
		t.Fatalf("status %d, want 200 or 206; body %s", res.Status, res.Body)
	}
	var out []map[string]any
	if err := json.Unmarshal(res.Body, &out); err != nil {
		t.Fatalf("body is not a JSON array of objects: %v\n%s", err, res.Body)
	}
	return out
}

// ids is rows' "id" values, in order.
func ids(t testing.TB, res *response) []int {
	t.Helper()
	rs := rows(t, res)
	out := make([]int, len(rs))
	for i, r := range rs {
		f, ok := r["id"].(float64)
		if !ok {
			t.Fatalf("row %d has no numeric id: %v", i, r)
		}
		out[i] = int(f)
	}
	return out
}

// sqlRows runs query as the superuser and returns its rows as JSON objects
// (through json_agg), so they compare with rows of a response.
func sqlRows(t testing.TB, query string, args ...any) []map[string]any {
	t.Helper()
	var out []map[string]any
	if err := json.Unmarshal(pgresttest.SQLJSON(t, db.SuperDSN, query, args...), &out); err != nil {
		t.Fatal(err)
	}
	return out
}
