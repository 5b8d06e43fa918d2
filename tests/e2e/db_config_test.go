package e2e

import (
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// dbConfigSchemas makes two schemas with one table each, readable by the
// anonymous role, and removes them and every pgrst.* setting of the
// authenticator when the test ends (other tests start servers that read
// them).
func dbConfigSchemas(t *testing.T) {
	t.Helper()
	sql(t, `create schema dbc_one; create schema dbc_two;
	        create table dbc_one.t_one (id int); insert into dbc_one.t_one values (1);
	        create table dbc_two.t_two (id int); insert into dbc_two.t_two values (2);
	        grant usage on schema dbc_one, dbc_two to web_anon;
	        grant select on dbc_one.t_one, dbc_two.t_two to web_anon;
	        create table api.dbc_api (id int); insert into api.dbc_api values (3);
	        grant select on api.dbc_api to web_anon, webuser;`)
	t.Cleanup(func() {
		resetAuthenticatorSettings(t)
		sql(t, `drop schema dbc_one cascade; drop schema dbc_two cascade; drop table api.dbc_api;`)
	})
}

// resetAuthenticatorSettings drops the authenticator's settings, general
// and for this database.
func resetAuthenticatorSettings(t *testing.T) {
	t.Helper()
	sql(t, `alter role authenticator reset all;
	        do $$ begin execute format('alter role authenticator in database %I reset all', current_database()); end $$;`)
}

// setForDatabase runs ALTER ROLE authenticator IN DATABASE <this> SET name = value.
func setForDatabase(t *testing.T, name, value string) {
	t.Helper()
	sql(t, `do $$ begin execute format('alter role authenticator in database %I set `+name+` = %L', current_database(), '`+value+`'); end $$;`)
}

// eventually retries check until it passes or 30 seconds pass: a bound
// that keeps a test from hanging, generous for a loaded machine.
func eventually(t *testing.T, what string, check func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if check() {
			return
		}
	}
	t.Fatalf("%s did not happen within 30 seconds", what)
}

// logHasLine says whether the Caddy log in logFile has an entry of level
// naming every one of words (pgresttest.LogHasLine).
func logHasLine(t *testing.T, logFile, level string, words ...string) bool {
	t.Helper()
	log, err := os.ReadFile(logFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return pgresttest.LogHasLine(string(log), level, words...)
}

// closedGate is a closed pgtest.Gate in front of the test database's
// server: a database that is down until the gate opens.
func closedGate(t *testing.T) *pgtest.Gate {
	t.Helper()
	u, err := url.Parse(authDSN)
	if err != nil {
		t.Fatal(err)
	}
	g, err := pgtest.NewGate(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g
}

// gatedAuthDSN is authDSN through gate.
func gatedAuthDSN(t *testing.T, gate *pgtest.Gate) string {
	t.Helper()
	return errAuthDSN(t, func(u *url.URL) { u.Host = gate.Addr })
}

// waitForListener waits until pgrest listens for notifications: one sent
// before would be lost.
func waitForListener(t *testing.T) {
	t.Helper()
	eventually(t, "listening for notifications", func() bool {
		return pgresttest.SQLInt(t, superDSN, `select count(*) from pg_stat_activity
			where datname = current_database() and application_name = 'pgrest' and query ilike 'listen %'`) > 0
	})
}

func TestInDatabaseConfiguration(t *testing.T) {
	dbConfigSchemas(t)

	t.Run("the role's setting for this database beats its general one and the Caddyfile", func(t *testing.T) {
		sql(t, `alter role authenticator set pgrst.db_schemas = 'dbc_one'`)
		setForDatabase(t, "pgrst.db_schemas", "dbc_two")
		s := startServer(t) // the Caddyfile says db_schemas api
		s.get(t, "/t_two").Expect(t, http.StatusOK, `[{"id":2}]`, nil)
		s.get(t, "/t_one").expectError(t, http.StatusNotFound, "PGRST205")
		s.get(t, "/dbc_api").expectError(t, http.StatusNotFound, "PGRST205")
	})

	t.Run("NOTIFY pgrst, 'reload config' applies a change without a restart", func(t *testing.T) {
		resetAuthenticatorSettings(t)
		logFile := filepath.Join(t.TempDir(), "caddy.log")
		s := startServerLogging(t, logFile)
		s.get(t, "/t_one").expectError(t, http.StatusNotFound, "PGRST205")
		sql(t, `alter role authenticator set pgrst.db_schemas = 'dbc_one, dbc_two';
		        alter role authenticator set pgrst.server_trace_header = 'X-Trace';
		        notify pgrst, 'reload config'`)
		eventually(t, "the reload", func() bool {
			return s.get(t, "/t_one").Status == http.StatusOK
		})
		res := s.get(t, "/t_two", "Accept-Profile", "dbc_two", "X-Trace", "abc")
		res.Expect(t, http.StatusOK, `[{"id":2}]`, map[string]string{"Content-Profile": "dbc_two", "X-Trace": "abc"})

		t.Run("a configuration that is not valid is logged and the one in force stays", func(t *testing.T) {
			sql(t, `alter role authenticator set pgrst.db_max_rows = 'lots'; notify pgrst, 'reload config'`)
			eventually(t, "the reload's error, naming the setting, in the log", func() bool {
				return logHasLine(t, logFile, "error", "keeping the configuration in force", "pgrst.db_max_rows")
			})
			s.get(t, "/t_one").Expect(t, http.StatusOK, `[{"id":1}]`, nil)
		})
	})

	// PostgREST v16.2 logs an in-database configuration that is not
	// valid at start and serves on its file's (only --dump-config and
	// --dump-schema die on it); pgrest refuses to start, a difference the
	// README's table gives the reason for. On a reload both keep the
	// configuration in force (the subtest above).
	t.Run("a configuration that is not valid at start stops pgrest naming the setting", func(t *testing.T) {
		resetAuthenticatorSettings(t)
		sql(t, `alter role authenticator set pgrst.db_max_rows = 'lots'`)
		t.Cleanup(func() { resetAuthenticatorSettings(t) })
		pgresttest.ExpectRefusedStart(t, defaultDirectives(), "pgrst.db_max_rows = 'lots'", "pgrst.db_max_rows", "lots")
	})

	// PostgREST v16.2 starts on a database it cannot reach: its schema
	// cache load, retried until the database answers, reads the
	// in-database configuration first each time (retryingSchemaCacheLoad,
	// qInDbConfig), so the configuration it serves once the database is
	// back is the database's.
	t.Run("a database that cannot be reached at start: its configuration is read once it can be", func(t *testing.T) {
		resetAuthenticatorSettings(t)
		sql(t, `alter role authenticator set pgrst.db_schemas = 'dbc_one'`)
		gate := closedGate(t)
		logFile := filepath.Join(t.TempDir(), "caddy.log")
		s := startServerLogging(t, logFile, "db_uri "+pgresttest.Quote(gatedAuthDSN(t, gate)))
		if !logHasLine(t, logFile, "warn", "starting with the Caddyfile's configuration only") {
			t.Error("no warning that pgrest starts on the Caddyfile's configuration")
		}
		s.get(t, "/t_one").expectError(t, http.StatusServiceUnavailable, "PGRST000")
		if err := gate.Open(); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the database's db_schemas in force", func() bool { return s.get(t, "/t_one").Status == http.StatusOK })
		s.get(t, "/t_one").Expect(t, http.StatusOK, `[{"id":1}]`, nil)
		s.get(t, "/dbc_api").expectError(t, http.StatusNotFound, "PGRST205")
	})

	t.Run("SIGUSR2 re-reads it, as it does for PostgREST", func(t *testing.T) {
		resetAuthenticatorSettings(t)
		s := startServer(t) // db_config is on: pgrest handles SIGUSR2
		s.get(t, "/t_one").expectError(t, http.StatusNotFound, "PGRST205")
		sql(t, `alter role authenticator set pgrst.db_schemas = 'dbc_one'`)
		if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR2); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the reload on SIGUSR2", func() bool { return s.get(t, "/t_one").Status == http.StatusOK })
	})

	t.Run("settings PostgREST does not read from the database are ignored", func(t *testing.T) {
		resetAuthenticatorSettings(t)
		sql(t, `alter role authenticator set pgrst.db_uri = 'postgres://nobody@127.0.0.1:1/none';
		        alter role authenticator set pgrst.db_channel = 'elsewhere';
		        alter role authenticator set pgrst.server_port = '1'`)
		s := startServer(t)
		s.get(t, "/dbc_api").ExpectStatus(t, http.StatusOK)
		// db_channel stayed pgrst: a reload notification there still works.
		sql(t, `alter role authenticator set pgrst.db_schemas = 'dbc_one'; notify pgrst, 'reload config'`)
		eventually(t, "the reload on pgrst", func() bool { return s.get(t, "/t_one").Status == http.StatusOK })
	})

	t.Run("db_config false reads nothing from the database", func(t *testing.T) {
		resetAuthenticatorSettings(t)
		sql(t, `alter role authenticator set pgrst.db_schemas = 'dbc_one'`)
		s := startServer(t, "db_config false")
		s.get(t, "/t_one").expectError(t, http.StatusNotFound, "PGRST205")
		s.get(t, "/dbc_api").ExpectStatus(t, http.StatusOK)
	})

	t.Run("db_pre_config sets the settings with set_config; the role's win", func(t *testing.T) {
		resetAuthenticatorSettings(t)
		sql(t, `create schema dbc_conf;
		        create function dbc_conf.pre_config() returns void language sql as $$
		          select set_config('pgrst.db_schemas', 'dbc_one', true),
		                 set_config('pgrst.client_error_verbosity', 'minimal', true),
		                 set_config('pgrst.db_max_rows', '5', true)
		        $$;
		        grant usage on schema dbc_conf to authenticator;`)
		t.Cleanup(func() { sql(t, `drop schema dbc_conf cascade`) })
		sql(t, `alter role authenticator set pgrst.db_max_rows = '7'`)
		sql(t, `create function dbc_one.nums() returns setof int language sql as 'select generate_series(1, 10)';
		        grant execute on function dbc_one.nums() to web_anon;`)
		s := startServer(t, "db_pre_config dbc_conf.pre_config")
		s.get(t, "/t_one").Expect(t, http.StatusOK, `[{"id":1}]`, nil)
		// db_max_rows: the role's 7 wins over the function's 5.
		s.get(t, "/rpc/nums").Expect(t, http.StatusOK, `[1,2,3,4,5,6,7]`, nil)
		expectMinimalError(t, s.get(t, "/nope"), http.StatusNotFound, "PGRST205")
	})

	t.Run("a jwt_secret from the database verifies tokens", func(t *testing.T) {
		resetAuthenticatorSettings(t)
		const dbSecret = "a-secret-that-only-the-database-knows-0123456789"
		sql(t, `alter role authenticator set pgrst.jwt_secret = '`+dbSecret+`'`)
		s := startServer(t)
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"role": "webuser"}).SignedString([]byte(dbSecret))
		if err != nil {
			t.Fatal(err)
		}
		s.get(t, "/dbc_api", bearer(tok)...).ExpectStatus(t, http.StatusOK)
		s.get(t, "/dbc_api", bearer(token(t, jwt.MapClaims{"role": "webuser"}))...).
			expectError(t, http.StatusUnauthorized, "PGRST301")
	})
}
