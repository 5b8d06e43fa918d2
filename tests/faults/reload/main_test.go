// Package reload tests that pgrest keeps answering through what
// happens to a running server: Caddy config reloads under load, schema
// reloads, the database being away, and that its 503 and 504 answers say
// when to retry. The tests assert what happens, not how soon: how long a
// NOTIFY takes to show and the API to come back after an outage are
// figures of make bench (tests/benchscale).
package reload

import (
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The cluster every test of this package makes its databases in; the
// read fixture's database provides the cluster-wide roles.
var db *pgresttest.DB

func TestMain(m *testing.M) {
	db = pgresttest.MustSetUp("pgrest_faults_reload", pgresttest.ReadFixture)
	db.Run(m)
}

// schemaSQL is each test's own database: a schema api that web_anon may
// read (tables created later too), 100 items, and a function that holds
// its connection until the test releases the advisory lock it waits for
// (pgtest.HoldLock).
const schemaSQL = `
create schema api;
grant usage on schema api to web_anon;
alter default privileges in schema api grant select on tables to web_anon;
create table api.items (id int primary key, name text not null);
insert into api.items select i, 'item ' || i from generate_series(1, 100) i;
create function api.wait_for_lock(key bigint) returns int language sql
  as 'select 1 from pg_advisory_xact_lock_shared(key)';
grant execute on function api.wait_for_lock(bigint) to web_anon;
`

// testDatabase makes a database called name holding schemaSQL and returns
// its superuser URL; it is dropped when t ends.
func testDatabase(t *testing.T, name string) string {
	t.Helper()
	dsn := db.Cluster.CreateDatabase(t, name)
	pgtest.Exec(t, dsn, schemaSQL)
	return dsn
}

// directives are a server's pgrest subdirectives for the database at
// appDSN (the authenticator's URL), with lines applied.
func directives(appDSN string, lines ...string) map[string]string {
	return pgresttest.Directives(map[string]string{
		"db_uri":       appDSN,
		"db_schemas":   "api",
		"db_anon_role": fixtures.AnonRole,
		"jwt_secret":   "pgrest-resilience-tests-secret-0123456789abcdef",
	}, lines...)
}

// startServer serves the database at dsn (a superuser URL) as the
// authenticator, with lines applied; it stops when t ends.
func startServer(t *testing.T, dsn string, lines ...string) *pgresttest.Server {
	t.Helper()
	app := pgtest.DSNFor(dsn, fixtures.Authenticator, fixtures.AuthenticatorPassword)
	return pgresttest.Start(t, directives(app), lines...)
}
