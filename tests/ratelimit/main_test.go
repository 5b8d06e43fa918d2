// Package ratelimit tests pgrest's rate limits on a real Caddy and a real
// PostgreSQL: bursts refused with 429 PGRST193 and the IETF RateLimit
// header fields, limits per claim, kinds and roles, a role's quota from
// the database, the allowed rate held over 30 seconds, Redis failing open
// and closed; and, with pg_stat_statements, that no refused request
// reaches PostgreSQL.
package ratelimit

import (
	"context"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

var db *pgresttest.DB

const jwtSecret = "a-rate-limit-test-secret-of-32-characters-or-more"

// fixture is the API of these tests: a table to read, functions to call,
// and a role with a quota of its own.
const fixture = `
create schema rl;
grant usage on schema rl to web_anon, webuser;
create table rl.items (id int primary key);
insert into rl.items values (1), (2);
grant select on rl.items to web_anon, webuser;
create function rl.slow_fn() returns int language sql as 'select 1';
create function rl.fast_fn() returns int language sql as 'select 2';
grant execute on function rl.slow_fn(), rl.fast_fn() to web_anon, webuser;
create role rl_premium nologin;
grant rl_premium to authenticator;
grant usage on schema rl to rl_premium;
grant select on rl.items to rl_premium;
`

func TestMain(m *testing.M) {
	db = pgresttest.MustSetUp("pgrest_ratelimit", pgresttest.SQL("roles.sql", fixtures.RolesSQL),
		pgresttest.SQL("ratelimit.sql", fixture))
	// pg_stat_statements counts the statements that reach PostgreSQL; it
	// is loaded at server start only, so this package's cluster restarts
	// with it (other packages' clusters go without).
	ctx := context.Background()
	if err := pgtest.ExecSQL(ctx, db.SuperDSN, `alter system set shared_preload_libraries = 'pg_stat_statements'`); err != nil {
		db.Abort("loading pg_stat_statements", err)
	}
	if err := db.Cluster.Restart("fast"); err != nil {
		db.Abort("restarting with pg_stat_statements", err)
	}
	if err := pgtest.ExecSQL(ctx, db.SuperDSN, `create extension if not exists pg_stat_statements`); err != nil {
		db.Abort("creating pg_stat_statements", err)
	}
	db.Run(m)
}

// dirs are the subdirectives of every server here; tests add their limits.
func dirs(lines ...string) map[string]string {
	return pgresttest.Directives(map[string]string{
		"db_uri":       db.AuthenticatorDSN(),
		"db_schemas":   "rl",
		"db_anon_role": fixtures.AnonRole,
		"jwt_secret":   jwtSecret,
	}, lines...)
}
