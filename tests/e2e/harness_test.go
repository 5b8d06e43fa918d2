package e2e

import (
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The test database, shared by every test of this package: superDSN
// connects as a superuser, authDSN as the authenticator. e2eDB is it with
// its cluster, where specDatabase makes PostgREST's fixture.
var (
	superDSN, authDSN string
	e2eDB             *pgresttest.DB
)

const (
	authenticatorPassword = "authenticator-password"
	// jwtSecret is the HS256 passphrase every default server verifies with.
	jwtSecret = "pgrest-e2e-secret-that-is-long-enough-0123456789"
)

// TestMain loads the fixtures into a fresh database of a throwaway cluster
// and runs the tests: testdata/00_base.sql (the roles and schemas), the
// login pattern of demo/schema.sql (its section from "Users and login" to
// "Sample data", which needs only those), then the other testdata/*.sql in
// name order.
func TestMain(m *testing.M) {
	db := pgresttest.MustSetUp("pgrest_e2e",
		pgresttest.Files("testdata/00_*.sql"),
		pgresttest.FileSection("../../demo/schema.sql", "-- Users and login", "-- Sample data"),
		pgresttest.Files("testdata/[1-9]*.sql"))
	superDSN, authDSN, e2eDB = db.SuperDSN, db.AuthenticatorDSN(), db
	db.Run(m)
}

// defaultDirectives is the handler configuration startServer starts from.
func defaultDirectives() map[string]string {
	return map[string]string{"db_uri": authDSN, "db_schemas": "api", "db_anon_role": "web_anon", "jwt_secret": jwtSecret}
}

// startServer serves pgrest from a real Caddy config on a free loopback
// port, with defaultDirectives changed by lines: "db_tx_end rollback"
// replaces the default of the same name, "-name" removes it (see
// pgresttest.Start). Only one config runs at a time, so these tests do not
// run in parallel. The server stops when the test ends.
func startServer(t testing.TB, lines ...string) *server {
	t.Helper()
	return &server{pgresttest.Start(t, defaultDirectives(), lines...)}
}

// server and response are pgresttest's, with the names the tests use:
// do, get and expectError.
type (
	server   struct{ *pgresttest.Server }
	response struct{ *pgresttest.Response }
)

func (s *server) do(t testing.TB, method, path, body string, headers ...string) *response {
	t.Helper()
	return &response{s.Do(t, method, path, body, headers...)}
}

func (s *server) get(t testing.TB, path string, headers ...string) *response {
	t.Helper()
	return &response{s.Get(t, path, headers...)}
}

func (r *response) expectError(t testing.TB, status int, code string) map[string]any {
	t.Helper()
	return r.ExpectError(t, status, code)
}

// bearer is the Authorization header pair for a token.
func bearer(token string) []string { return pgresttest.Bearer(token) }

// token signs claims with HS256 and jwtSecret.
func token(t testing.TB, claims jwt.MapClaims) string {
	t.Helper()
	return pgresttest.Token(t, jwtSecret, claims)
}

// sql runs statements as the superuser, for setting up and checking state.
func sql(t testing.TB, statements string) {
	t.Helper()
	pgtest.Exec(t, superDSN, statements)
}

// freePort is a loopback port where nothing listens.
func freePort(t testing.TB) int {
	t.Helper()
	port, err := pgresttest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// holdPool makes a call of api.wait_for_lock hold a pool connection of s
// until release is called (see pgresttest.HoldConnections).
func holdPool(t *testing.T, s *server, key int64) (release func(), answer <-chan *pgresttest.Response) {
	t.Helper()
	return pgresttest.HoldConnections(t, s.Server, superDSN, "wait_for_lock", key, 1)
}
