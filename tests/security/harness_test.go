// Package security feeds an injection corpus (testdata/payloads.txt and
// sql_tails.txt, with generated variants) into every input point of
// pgrest's HTTP API, against the fixture testdata/00_security.sql in a
// throwaway cluster, and checks that no payload becomes SQL: no 5xx, no
// change to the canary tables, no call of the tripwire function, no
// injected delay, no secret or canary text in any response, and no new
// database object.
package security

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The fixture database, shared by every test of this package.
var db *pgresttest.DB

// secret is the database's app.jwt_secret and the server's jwt_secret: a
// random value made for this run, so that seeing it in a response can only
// mean it leaked.
var secret = randomSecret()

func randomSecret() string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return "jwtsecret-" + hex.EncodeToString(b)
}

// runSettings are the fixture's parts that depend on the run: the secret
// as a database-level setting, the tripwire's connection, and a statement
// timeout for the authenticator that bounds what an injected pg_sleep
// costs (a request that long still counts as delayed).
func runSettings(tripDSN string) string {
	return fmt.Sprintf(`
do $$
begin
  execute format('alter database %%I set app.jwt_secret = %%L', current_database(), %s);
  execute format('alter role authenticator in database %%I set statement_timeout = %%L',
                 current_database(), '4500ms');
end
$$;
create function private.trip_dsn() returns text language sql immutable as $$ select %s::text $$;
revoke all on function private.trip_dsn() from public;
`, literal(secret), literal(tripDSN))
}

// literal is s as an SQL string constant; s comes from this package.
func literal(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, '\'')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}

// TestMain loads the fixture and the run's settings into a fresh database
// and runs the tests.
func TestMain(m *testing.M) {
	db = pgresttest.MustSetUp("pgrest_security", pgresttest.Files("testdata/*.sql"),
		pgresttest.SQL("session_state.sql", fixtures.SessionStateSQL),
		func(ctx context.Context, superDSN string) error {
			tripDSN := pgtest.DSNFor(superDSN, "pgrest_tripwire", "pgrest-tripwire-password")
			return pgresttest.SQL("the run's settings", runSettings(tripDSN))(ctx, superDSN)
		})
	db.Run(m)
}

// startServer serves pgrest for the fixture: schema api, anonymous role
// web_anon, the run's secret, aggregates on, with lines applied (see
// pgresttest.Directives). Caddy's log goes to a file of the test's, since
// thousands of failing requests would bury the report.
func startServer(t testing.TB, lines ...string) *pgresttest.Server {
	t.Helper()
	return pgresttest.StartWith(t, pgresttest.Directives(serverDirs(), lines...),
		pgresttest.Options{LogFile: filepath.Join(t.TempDir(), "caddy.log")})
}

// serverDirs are the subdirectives of startServer's pgrest.
func serverDirs() map[string]string {
	return map[string]string{
		"db_uri":                db.AuthenticatorDSN(),
		"db_schemas":            "api",
		"db_anon_role":          "web_anon",
		"jwt_secret":            secret,
		"db_aggregates_enabled": "true",
	}
}

// userToken is a token for webuser, the role that may write items and
// reviews.
func userToken(t testing.TB) string {
	t.Helper()
	return pgresttest.Token(t, secret, jwt.MapClaims{"role": "webuser"})
}
