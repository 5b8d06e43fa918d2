package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// expectMinimalError checks an error written under client_error_verbosity
// minimal: code and message, nothing else.
func expectMinimalError(t *testing.T, res *response, status int, code string) {
	t.Helper()
	res.ExpectStatus(t, status)
	var m map[string]any
	if err := json.Unmarshal(res.Body, &m); err != nil {
		t.Fatalf("error body is not JSON: %s", res.Body)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if !reflect.DeepEqual(keys, []string{"code", "message"}) || m["code"] != code {
		t.Errorf("got %s, want code %s and a message only", res.Body, code)
	}
	if ps := res.Header.Get("Proxy-Status"); ps != "pgrest; error="+code {
		t.Errorf("Proxy-Status %q", ps)
	}
}

func TestServerTraceHeader(t *testing.T) {
	s := startServer(t, "server_trace_header X-Request-Id")
	t.Run("the request's value is echoed on a success", func(t *testing.T) {
		res := s.get(t, "/", "X-Request-Id", "req-42")
		res.ExpectStatus(t, http.StatusOK)
		if got := res.Header.Get("X-Request-Id"); got != "req-42" {
			t.Errorf("X-Request-Id = %q, want req-42", got)
		}
	})
	t.Run("and on an error", func(t *testing.T) {
		res := s.get(t, "/nope", "x-request-id", "req-43")
		res.expectError(t, http.StatusNotFound, "PGRST205")
		if got := res.Header.Get("X-Request-Id"); got != "req-43" {
			t.Errorf("X-Request-Id = %q, want req-43", got)
		}
	})
	t.Run("a request without it gets none", func(t *testing.T) {
		if got := s.get(t, "/").Header.Values("X-Request-Id"); len(got) != 0 {
			t.Errorf("X-Request-Id = %q", got)
		}
	})
}

func TestClientErrorVerbosity(t *testing.T) {
	t.Run("minimal writes code and message only", func(t *testing.T) {
		s := startServer(t, "client_error_verbosity minimal")
		// auth_note is close to auth_notes: verbose would hint at it.
		expectMinimalError(t, s.get(t, "/auth_note"), http.StatusNotFound, "PGRST205")
		expectMinimalError(t, s.get(t, "/", bearer("not-a-token")...), http.StatusUnauthorized, "PGRST301")
	})
	t.Run("verbose, the default, writes details and hint", func(t *testing.T) {
		s := startServer(t)
		body := s.get(t, "/auth_note").expectError(t, http.StatusNotFound, "PGRST205")
		if body["hint"] == nil {
			t.Errorf("no hint: %v", body)
		}
	})
}

func TestRootSpec(t *testing.T) {
	sql(t, `create function api.cfg_root() returns json language sql stable as $$
	          select json_build_object('swagger', '2.0', 'custom', true,
	                                   'accept', current_setting('request.headers', true)::json->>'accept')
	        $$;
	        grant execute on function api.cfg_root() to web_anon;`)
	t.Cleanup(func() { sql(t, `drop function api.cfg_root()`) })
	s := startServer(t, "db_root_spec cfg_root")
	t.Run("the function answers GET /", func(t *testing.T) {
		s.get(t, "/", "Accept", "application/json").
			Expect(t, http.StatusOK, `{"swagger":"2.0","custom":true,"accept":"application/json"}`, nil)
	})
	t.Run("as the OpenAPI document when asked for one", func(t *testing.T) {
		s.get(t, "/", "Accept", "application/openapi+json").
			Expect(t, http.StatusOK, `{"swagger":"2.0","custom":true,"accept":"application/openapi+json"}`,
				map[string]string{"Content-Type": "application/openapi+json; charset=utf-8"})
	})
	t.Run("a media type neither serves is 406", func(t *testing.T) {
		s.get(t, "/", "Accept", "text/csv").expectError(t, http.StatusNotAcceptable, "PGRST107")
	})
}

func TestOpenAPISecurityActive(t *testing.T) {
	doc := func(s *server) map[string]any {
		t.Helper()
		res := s.get(t, "/")
		res.ExpectStatus(t, http.StatusOK)
		return res.JSON(t).(map[string]any)
	}
	on := doc(startServer(t, "openapi_security_active true"))
	want := map[string]any{"JWT": map[string]any{
		"description": `Add the token prepending "Bearer " (without quotes) to it`,
		"in":          "header", "name": "Authorization", "type": "apiKey"}}
	if !reflect.DeepEqual(on["securityDefinitions"], want) {
		t.Errorf("securityDefinitions = %v", on["securityDefinitions"])
	}
	if !reflect.DeepEqual(on["security"], []any{map[string]any{"JWT": []any{}}}) {
		t.Errorf("security = %v", on["security"])
	}
	off := doc(startServer(t))
	if _, ok := off["securityDefinitions"]; ok {
		t.Error("securityDefinitions without openapi_security_active")
	}
}

// A pre-request function records work_mem as the transaction has it
// before the call: a function setting hoisted to the transaction shows
// there, one that is not applies inside the function only.
func TestHoistedTxSettings(t *testing.T) {
	sql(t, `create function api.cfg_pre() returns void language sql as $$
	          select set_config('app.cfg_seen', current_setting('work_mem'), true)
	        $$;
	        create function api.cfg_hoist() returns json language sql set work_mem = '3MB' as $$
	          select json_build_object('before', current_setting('app.cfg_seen', true), 'inside', current_setting('work_mem'))
	        $$;
	        grant execute on function api.cfg_pre(), api.cfg_hoist() to web_anon;`)
	t.Cleanup(func() { sql(t, `drop function api.cfg_pre(); drop function api.cfg_hoist()`) })
	seen := func(s *server) map[string]any {
		t.Helper()
		res := s.get(t, "/rpc/cfg_hoist")
		res.ExpectStatus(t, http.StatusOK)
		return res.JSON(t).(map[string]any)
	}
	t.Run("by default work_mem is not hoisted", func(t *testing.T) {
		got := seen(startServer(t, "db_pre_request api.cfg_pre"))
		if got["before"] == "3MB" || got["inside"] != "3MB" {
			t.Errorf("got %v", got)
		}
	})
	t.Run("db_hoisted_tx_settings names it", func(t *testing.T) {
		got := seen(startServer(t, "db_pre_request api.cfg_pre", "db_hoisted_tx_settings work_mem, statement_timeout"))
		if got["before"] != "3MB" {
			t.Errorf("got %v", got)
		}
	})
	t.Run(`"" hoists nothing`, func(t *testing.T) {
		got := seen(startServer(t, "db_pre_request api.cfg_pre", `db_hoisted_tx_settings ""`))
		if got["before"] == "3MB" {
			t.Errorf("got %v", got)
		}
	})
}

func TestSecretsFromFiles(t *testing.T) {
	dir := t.TempDir()
	uriFile := filepath.Join(dir, "db_uri")
	secretFile := filepath.Join(dir, "jwt")
	if err := os.WriteFile(uriFile, []byte(authDSN+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secretFile, []byte(jwtSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, "db_uri @"+uriFile, "jwt_secret @"+secretFile)
	s.get(t, "/", bearer(token(t, jwt.MapClaims{"role": "webuser"}))...).ExpectStatus(t, http.StatusOK)

	t.Run("a missing file is a configuration error", func(t *testing.T) {
		_, _, err := pgresttest.Serve(pgresttest.Directives(defaultDirectives(), "db_uri @"+filepath.Join(dir, "none")), pgresttest.Options{})
		if err == nil || !strings.Contains(err.Error(), "db_uri") {
			t.Fatalf("got %v", err)
		}
	})
}

// pgrest's pool connections: the authenticator's sessions other than
// the listener's.
func poolConnections(t *testing.T) int {
	t.Helper()
	var n int
	conn := authConnect(t)
	if err := conn.QueryRow(t.Context(), `select count(*) from pg_stat_activity
		where usename = 'authenticator' and application_name = 'pgrest'
		  and query not ilike 'listen%' and pid <> pg_backend_pid()`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPoolLifetimes(t *testing.T) {
	sql(t, `create function api.cfg_pid() returns int language sql as 'select pg_backend_pid()';
	        grant execute on function api.cfg_pid() to web_anon;`)
	t.Cleanup(func() { sql(t, `drop function api.cfg_pid()`) })
	pid := func(s *server) string {
		t.Helper()
		res := s.get(t, "/rpc/cfg_pid")
		res.ExpectStatus(t, http.StatusOK)
		return string(res.Body)
	}
	t.Run("db_pool_max_lifetime replaces a connection that lived that long", func(t *testing.T) {
		s := startServer(t, "db_pool 1", "db_pool_max_lifetime 1")
		first := pid(s)
		time.Sleep(1500 * time.Millisecond)
		if again := pid(s); again == first {
			t.Errorf("the same connection (%s) served after its lifetime", first)
		}
	})
	t.Run("without it the connection stays", func(t *testing.T) {
		s := startServer(t, "db_pool 1")
		first := pid(s)
		time.Sleep(1500 * time.Millisecond)
		if again := pid(s); again != first {
			t.Errorf("the connection changed: %s, then %s", first, again)
		}
	})
	t.Run("db_pool_max_idletime closes an idle connection", func(t *testing.T) {
		s := startServer(t, "db_pool 2", "db_pool_max_idletime 1")
		pid(s)
		eventually(t, "closing the idle connection", func() bool { return poolConnections(t) == 0 })
	})
}

// Schema names with spaces, quotes and non-ASCII letters work from the
// Caddyfile to the URL: as the default schema and through Accept-Profile.
func TestSchemaNamesWithSpecialCharacters(t *testing.T) {
	const odd = `Données "spéciales"`
	sql(t, `create schema "Données ""spéciales""";
	        create table "Données ""spéciales""".élément (id int); insert into "Données ""spéciales""".élément values (7);
	        grant usage on schema "Données ""spéciales""" to web_anon;
	        grant select on "Données ""spéciales""".élément to web_anon;`)
	t.Cleanup(func() { sql(t, `drop schema "Données ""spéciales""" cascade`) })
	t.Run("as the default schema", func(t *testing.T) {
		s := startServer(t, "db_schemas "+pgresttest.Quote(odd))
		s.get(t, "/%C3%A9l%C3%A9ment").Expect(t, http.StatusOK, `[{"id":7}]`, nil)
	})
	t.Run("as a profile beside api", func(t *testing.T) {
		s := startServer(t, "db_schemas api "+pgresttest.Quote(odd))
		s.get(t, "/élément", "Accept-Profile", odd).
			Expect(t, http.StatusOK, `[{"id":7}]`, map[string]string{"Content-Profile": odd})
		s.get(t, "/élément").expectError(t, http.StatusNotFound, "PGRST205")
	})
}

func TestLogLevel(t *testing.T) {
	// serve starts pgrest with Caddy's log at DEBUG in a file, so only
	// log_level filters, and returns the log once a request is answered.
	serve := func(t *testing.T, lines ...string) string {
		t.Helper()
		file := filepath.Join(t.TempDir(), "caddy.log")
		ps, _, err := pgresttest.Serve(pgresttest.Directives(defaultDirectives(), lines...),
			pgresttest.Options{LogFile: file, LogLevel: "DEBUG"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = pgresttest.Stop() })
		s := &server{ps}
		s.get(t, "/").ExpectStatus(t, http.StatusOK)
		time.Sleep(200 * time.Millisecond)
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	t.Run("warn leaves pgrest's info messages out", func(t *testing.T) {
		if log := serve(t, "log_level warn", "log_query true"); strings.Contains(log, "schema cache loaded") {
			t.Errorf("an info message was logged under log_level warn:\n%s", log)
		}
	})
	t.Run("info keeps them, and log_query logs each statement", func(t *testing.T) {
		log := serve(t, "log_level info", "log_query true")
		if !strings.Contains(log, "schema cache loaded") {
			t.Errorf("no info message under log_level info:\n%s", log)
		}
		if !strings.Contains(log, `"msg":"query"`) || !strings.Contains(log, "set_config") {
			t.Errorf("no query logged:\n%s", log)
		}
	})
}

// The listener's connection is cut; with automatic recovery it comes
// back (and reloads the schema cache, as notifications may have been
// missed), without it pgrest stops listening.
func TestPoolAutomaticRecovery(t *testing.T) {
	cut := func(t *testing.T) {
		t.Helper()
		sql(t, `select pg_terminate_backend(pid) from pg_stat_activity
		        where usename = 'authenticator' and query ilike 'listen%'`)
	}
	t.Cleanup(func() { sql(t, `drop table if exists api.cfg_late`) })
	t.Run("on: the listener reconnects and reloads", func(t *testing.T) {
		s := startServer(t)
		s.get(t, "/").ExpectStatus(t, http.StatusOK)
		sql(t, `create table api.cfg_late (id int); grant select on api.cfg_late to web_anon`)
		cut(t)
		eventually(t, "the reload after reconnecting", func() bool { return s.get(t, "/cfg_late").Status == http.StatusOK })
		sql(t, `drop table api.cfg_late`)
	})
	t.Run("off: the listener stays away", func(t *testing.T) {
		s := startServer(t, "db_pool_automatic_recovery false")
		s.get(t, "/").ExpectStatus(t, http.StatusOK)
		cut(t)
		time.Sleep(500 * time.Millisecond)
		sql(t, `create table api.cfg_late (id int); grant select on api.cfg_late to web_anon; notify pgrst, 'reload schema'`)
		time.Sleep(1500 * time.Millisecond)
		s.get(t, "/cfg_late").expectError(t, http.StatusNotFound, "PGRST205")
	})
}
