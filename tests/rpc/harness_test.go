// Package rpc holds HTTP tests of pgrest's function calls (/rpc/<name>)
// against demo/schema.sql plus the fixture testdata/*.sql, loaded once into a
// throwaway cluster.
package rpc

import (
	"encoding/json"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// superDSN connects as a superuser to the test database, shared by every
// test of this package.
var superDSN string

// jwtSecret is the HS256 passphrase every default server verifies with, and
// the database's app.jwt_secret (set by testdata/10_rpc.sql) that api.login
// signs with.
const jwtSecret = "pgrest-rpc-tests-secret-long-enough-0123456789"

// TestMain loads the demo schema (api.todos, the login pattern; the roles
// are SetUp's, demo/roles.sql), then testdata/*.sql in name order, into a fresh database of a throwaway
// cluster and runs the tests against a server connecting as the
// authenticator.
func TestMain(m *testing.M) {
	db := pgresttest.MustSetUp("pgrest_rpc", pgresttest.Files("../../demo/schema.sql", "testdata/*.sql"))
	superDSN = db.SuperDSN
	defaults["db_uri"] = db.AuthenticatorDSN()
	db.Run(m)
}

// defaults is the handler configuration startServer starts from; TestMain
// adds db_uri, the authenticator's URL.
var defaults = map[string]string{"db_schemas": "api", "db_anon_role": "web_anon", "jwt_secret": jwtSecret}

// startServer serves pgrest from a real Caddy config on a free loopback
// port, with defaults changed by lines: "db_tx_end rollback" replaces the
// default of the same name, "-name" removes it (see pgresttest.Start).
// Only one config runs at a time, so these tests do not run in parallel.
// The server stops when the test ends.
func startServer(t testing.TB, lines ...string) *server {
	t.Helper()
	return pgresttest.Start(t, defaults, lines...)
}

// server and response are pgresttest's.
type (
	server   = pgresttest.Server
	response = pgresttest.Response
)

// bearer is the Authorization header pair for a token.
func bearer(token string) []string { return pgresttest.Bearer(token) }

// sql runs statements as the superuser, for setting up and checking state.
func sql(t testing.TB, statements string) {
	t.Helper()
	pgtest.Exec(t, superDSN, statements)
}

// call is one request and the whole response it must get.
type call struct {
	name    string // a sentence: what pgrest does
	method  string
	path    string
	body    string
	headers []string // name, value, ...
	status  int
	// want is the body as JSON, compared as a value (spacing and key order
	// aside); "" expects no body.
	want string
	// header holds response headers to check; "" expects the header absent.
	header map[string]string
}

// runCalls runs each call as a subtest against s.
func runCalls(t *testing.T, s *server, calls []call) {
	t.Helper()
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			s.Do(t, c.method, c.path, c.body, c.headers...).Expect(t, c.status, c.want, c.header)
		})
	}
}

// errorJSON is the error body of the contract.
func errorJSON(code, message string, details, hint any) string {
	b, _ := json.Marshal(map[string]any{"code": code, "message": message, "details": details, "hint": hint})
	return string(b)
}

// sqlInt runs a query as the superuser and returns its one integer.
func sqlInt(t testing.TB, query string, args ...any) int64 {
	t.Helper()
	return pgresttest.SQLInt(t, superDSN, query, args...)
}

// forgetWrites deletes the books tests add, when the test ends.
func forgetWrites(t testing.TB) {
	t.Cleanup(func() { sql(t, `delete from api.books where id > 5`) })
}
