package security

import (
	"net/http"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The in-database configuration (db_config, on by default) with a
// db_pre_config function, served from a pool of one connection so that
// the configuration is re-read where the requests ran. Neither what the
// role's settings were when that connection logged in nor what a request
// left in its session may become configuration.

// reloadMarker is the trace header the test sets with each reload it
// triggers: once it is echoed, the reload has been read.
const reloadMarker = "X-Dbcfg-Reload"

// dbConfigLines are the servers' subdirectives: one connection, and the
// fixture's db_pre_config function.
var dbConfigLines = []string{"db_pool 1", "db_pre_config dbcfg.pre_config"}

// dbConfigFixture makes the db_pre_config function (it sets a harmless
// setting, as such functions do), api.dbcfg_whoami (the role a request
// runs as) and api.dbcfg_poison (an anonymous caller's way to leave
// session-level pgrst.* values and ask for a reload), and removes them and
// the authenticator's pgrst.* settings of this database when the test
// ends. api.dbcfg_become leaves a role in the session instead.
func dbConfigFixture(t *testing.T) {
	t.Helper()
	pgtest.Exec(t, db.SuperDSN, `
create schema dbcfg;
grant usage on schema dbcfg to authenticator;
create function dbcfg.pre_config() returns void language sql as $$
  select pg_catalog.set_config('pgrst.db_max_rows', '1000', true)
$$;
create function api.dbcfg_whoami() returns text language sql stable as $$ select current_user::text $$;
revoke all on function api.dbcfg_whoami() from public;
grant execute on function api.dbcfg_whoami() to web_anon, webuser;
create function api.dbcfg_poison(secret text) returns void language sql volatile as $$
  select pg_catalog.set_config('pgrst.jwt_secret', secret, false),
         pg_catalog.set_config('pgrst.db_anon_role', 'webuser', false),
         pg_catalog.pg_notify('pgrst', 'reload config')
$$;
revoke all on function api.dbcfg_poison(text) from public;
grant execute on function api.dbcfg_poison(text) to web_anon;
create function api.dbcfg_become(role text) returns void language sql volatile as $$
  select pg_catalog.set_config('role', role, false)
$$;
revoke all on function api.dbcfg_become(text) from public;
grant execute on function api.dbcfg_become(text) to web_anon;`)
	t.Cleanup(func() {
		setAuthenticatorInDatabase(t, `reset pgrst.jwt_secret; reset pgrst.server_trace_header`)
		pgtest.Exec(t, db.SuperDSN, `drop schema dbcfg cascade;
			drop function api.dbcfg_whoami(); drop function api.dbcfg_poison(text);
			drop function api.dbcfg_become(text);`)
	})
}

// setAuthenticatorInDatabase runs ALTER ROLE authenticator IN DATABASE
// <this one> with each of the ;-separated actions (SET x = 'y', RESET x):
// the role's settings of this database, which other databases of a shared
// server do not see.
func setAuthenticatorInDatabase(t *testing.T, actions string) {
	t.Helper()
	pgtest.Exec(t, db.SuperDSN, `do $$
declare a text;
begin
  foreach a in array pg_catalog.string_to_array(`+literal(actions)+`, '; ') loop
    execute pg_catalog.format('alter role authenticator in database %I ', pg_catalog.current_database()) || a;
  end loop;
end $$;`)
}

// reloadWithMarker sets the marker trace header in the database, asks for
// a configuration reload and waits until s echoes the header: the reload
// of this notification, and of every one sent before it, is done.
func reloadWithMarker(t *testing.T, s *pgresttest.Server) {
	t.Helper()
	setAuthenticatorInDatabase(t, `set pgrst.server_trace_header = '`+reloadMarker+`'`)
	pgtest.Exec(t, db.SuperDSN, `notify pgrst, 'reload config'`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		res := s.Get(t, "/rpc/dbcfg_whoami", reloadMarker, "seen")
		if res.Header.Get(reloadMarker) == "seen" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the configuration reload was not done within 30 seconds (last status %d)", res.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// whoami asks for the role a request runs as, with headers.
func whoami(t *testing.T, s *pgresttest.Server, headers ...string) *pgresttest.Response {
	t.Helper()
	return s.Get(t, "/rpc/dbcfg_whoami", headers...)
}

func TestDBConfigRevokedJWTSecretStopsVerifyingAfterReload(t *testing.T) {
	dbConfigFixture(t)
	const revoked = "dbcfg-revoked-signing-key-0123456789abcdef"
	setAuthenticatorInDatabase(t, `set pgrst.jwt_secret = '`+revoked+`'`)
	s := startServer(t, dbConfigLines...)
	user := jwt.MapClaims{"role": "webuser"}
	whoami(t, s, pgresttest.Bearer(pgresttest.Token(t, revoked, user))...).Expect(t, http.StatusOK, `"webuser"`, nil)

	setAuthenticatorInDatabase(t, `reset pgrst.jwt_secret`)
	reloadWithMarker(t, s)

	// The connection that read the configuration logged in while the role
	// held the secret; the key is revoked all the same.
	whoami(t, s, pgresttest.Bearer(pgresttest.Token(t, revoked, user))...).ExpectError(t, http.StatusUnauthorized, "PGRST301")
	whoami(t, s, pgresttest.Bearer(userToken(t))...).Expect(t, http.StatusOK, `"webuser"`, nil)
}

func TestDBConfigSessionValuesOfARequestAreNotConfiguration(t *testing.T) {
	dbConfigFixture(t)
	const chosen = "dbcfg-attacker-chosen-key-0123456789abcdef"
	s := startServer(t, dbConfigLines...)
	whoami(t, s).Expect(t, http.StatusOK, `"web_anon"`, nil)

	// An anonymous call leaves pgrst.jwt_secret and pgrst.db_anon_role in
	// its connection's session and asks for a reload.
	s.Do(t, http.MethodPost, "/rpc/dbcfg_poison", `{"secret": "`+chosen+`"}`,
		"Content-Type", "application/json").ExpectStatus(t, http.StatusNoContent)
	reloadWithMarker(t, s)

	forged := pgresttest.Token(t, chosen, jwt.MapClaims{"role": "webuser"})
	whoami(t, s, pgresttest.Bearer(forged)...).ExpectError(t, http.StatusUnauthorized, "PGRST301")
	whoami(t, s).Expect(t, http.StatusOK, `"web_anon"`, nil)
	whoami(t, s, pgresttest.Bearer(userToken(t))...).Expect(t, http.StatusOK, `"webuser"`, nil)
}

func TestDBConfigDatabaseSettingIsNotReadWithPreConfig(t *testing.T) {
	dbConfigFixture(t)
	// The session of any connection holds it from its login on: the
	// db_pre_config function's settings are read back where it is, yet it
	// is no setting of the authenticator's.
	const dbLevel = "dbcfg-database-level-key-0123456789abcdef"
	pgtest.Exec(t, db.SuperDSN, `do $$ begin
  execute pg_catalog.format('alter database %I set pgrst.jwt_secret = %L', pg_catalog.current_database(), `+literal(dbLevel)+`);
end $$;`)
	t.Cleanup(func() {
		pgtest.Exec(t, db.SuperDSN, `do $$ begin
  execute pg_catalog.format('alter database %I reset pgrst.jwt_secret', pg_catalog.current_database());
end $$;`)
	})
	s := startServer(t, dbConfigLines...)
	whoami(t, s, pgresttest.Bearer(pgresttest.Token(t, dbLevel, jwt.MapClaims{"role": "webuser"}))...).
		ExpectError(t, http.StatusUnauthorized, "PGRST301")
	whoami(t, s, pgresttest.Bearer(userToken(t))...).Expect(t, http.StatusOK, `"webuser"`, nil)
}

func TestDBConfigRoleOfARequestDoesNotPickWhoseSettingsAreRead(t *testing.T) {
	dbConfigFixture(t)
	s := startServer(t, dbConfigLines...)
	// An anonymous call leaves webuser (a role the authenticator is
	// granted) as its session's role. Read there, current_user would be
	// webuser: the authenticator's settings, the marker among them, would
	// not be read, and webuser may not call the db_pre_config function.
	s.Do(t, http.MethodPost, "/rpc/dbcfg_become", `{"role": "webuser"}`,
		"Content-Type", "application/json").ExpectStatus(t, http.StatusNoContent)
	reloadWithMarker(t, s)
	whoami(t, s).Expect(t, http.StatusOK, `"web_anon"`, nil)
}
