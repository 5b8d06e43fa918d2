package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// errAuthDSN is authDSN changed by edit.
func errAuthDSN(t *testing.T, edit func(u *url.URL)) string {
	t.Helper()
	u, err := url.Parse(authDSN)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Skipf("authDSN is not a URL: %v", err)
	}
	edit(u)
	return u.String()
}

// startServerLogging is startServer with Caddy's log, pgrest's included,
// written to logFile.
func startServerLogging(t *testing.T, logFile string, lines ...string) *server {
	t.Helper()
	s, _, err := pgresttest.Serve(pgresttest.Directives(defaultDirectives(), lines...), pgresttest.Options{LogFile: logFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pgresttest.Stop(); err != nil {
			t.Errorf("stopping Caddy: %v", err)
		}
	})
	return &server{s}
}

// A database that cannot be reached is 503 PGRST000 whose details say why
// in general words: the body names no user, database, host or port of
// db_uri and quotes no driver error, while the log has the full cause.
func TestErrorsConnectionFailuresAre503(t *testing.T) {
	closedPort := freePort(t) // closed again once freePort returns
	real, err := url.Parse(authDSN)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		edit    func(u *url.URL)
		details string
		cause   string // in the log
		secrets []string
	}{
		{"a db_uri naming a closed port is 503 PGRST000",
			func(u *url.URL) { u.Host = fmt.Sprintf("127.0.0.1:%d", closedPort) },
			"Nothing accepts connections at the address of db_uri.", "connection refused",
			[]string{strconv.Itoa(closedPort)}},
		{"a db_uri naming a database that does not exist is 503 PGRST000",
			func(u *url.URL) { u.Path = "/err_no_such_database" },
			"The database named in db_uri does not exist.", `database "err_no_such_database" does not exist`,
			[]string{"err_no_such_database", real.Port()}},
		{"a db_uri with a wrong password is 503 PGRST000",
			func(u *url.URL) { u.User = url.UserPassword("authenticator", "err-wrong-password") },
			"The database refused the credentials of db_uri.", `password authentication failed for user "authenticator"`,
			[]string{"err-wrong-password", strings.TrimPrefix(real.Path, "/"), real.Port()}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			logFile := filepath.Join(t.TempDir(), "caddy.log")
			// The wait for a connection would last 5 minutes: an answer
			// within errClient's timeout came from the failed attempt.
			s := startServerLogging(t, logFile, "db_uri "+errAuthDSN(t, c.edit), "db_pool_acquisition_timeout 5m")
			secrets := append([]string{"authenticator", "127.0.0.1", "localhost", "dial", "failed to connect",
				"user=", "database=", "host=", "port="}, c.secrets...)
			requests := []struct{ method, path, body string }{
				{http.MethodGet, "/err_items", ""},
				{http.MethodPost, "/rpc/err_fn", "{}"},
				{http.MethodGet, "/rpc/err_fn", ""},
			}
			for _, r := range requests {
				res := s.errDo(t, r.method, r.path, r.body)
				res.expectErrorBody(t, errWant{status: 503, code: "PGRST000",
					message: "Database connection error. Retrying the connection.", details: c.details})
				for _, secret := range secrets {
					if secret != "" && strings.Contains(strings.ToLower(string(res.Body)), strings.ToLower(secret)) {
						t.Errorf("%s %s: the body %s names %q", r.method, r.path, res.Body, secret)
					}
				}
			}
			res := s.errDo(t, http.MethodHead, "/err_items", "")
			res.expectError(t, 503, "PGRST000")
			if len(res.Body) != 0 {
				t.Errorf("HEAD answered with a body: %q", res.Body)
			}
			log, err := os.ReadFile(logFile)
			if err != nil {
				t.Fatal(err)
			}
			// The log is JSON lines: the cause's quotes are escaped there.
			cause := strings.ReplaceAll(c.cause, `"`, `\"`)
			if !strings.Contains(string(log), "cannot connect to the database") || !strings.Contains(string(log), cause) {
				t.Errorf("the log does not have the cause %q:\n%s", c.cause, log)
			}
		})
	}
}

// With every pool connection busy, a request waits
// db_pool_acquisition_timeout and is then 504 PGRST003.
func TestErrorsPoolExhaustionIs504(t *testing.T) {
	s := startServer(t, "db_pool 1", "db_pool_acquisition_timeout 1s")
	if res := s.errDo(t, http.MethodGet, "/err_items", ""); res.Status != 200 {
		t.Fatalf("warm-up: %d %s", res.Status, res.Body)
	}

	// The only connection is held until release, after the requests
	// below: each waits the whole timeout (PGRST003 is its end) and no
	// connection frees up meanwhile.
	release, held := holdPool(t, s, 504)

	t.Run("a request finding no free connection is 504 PGRST003 after the timeout", func(t *testing.T) {
		for _, r := range []struct{ method, path, body string }{
			{http.MethodGet, "/err_items", ""},
			{http.MethodPost, "/rpc/err_fn", "{}"},
		} {
			res := s.errDo(t, r.method, r.path, r.body)
			res.expectErrorBody(t, errWant{status: 504, code: "PGRST003",
				message: "Timed out acquiring connection from connection pool."})
		}
	})

	t.Run("the request holding the connection completes", func(t *testing.T) {
		release()
		h := <-held
		if h == nil {
			t.FailNow()
		}
		if h.Status != 200 || string(h.Body) != "1" {
			t.Fatalf("got %d %s", h.Status, h.Body)
		}
	})

	t.Run("once the connection is free a request succeeds", func(t *testing.T) {
		if res := s.errDo(t, http.MethodGet, "/err_items", ""); res.Status != 200 {
			t.Fatalf("got %d %s", res.Status, res.Body)
		}
	})
}

// Connections killed under the server: the next request is answered
// (a success or a 503, never a 500 or a hang) and the pool recovers.
func TestErrorsTerminatedConnectionsRecover(t *testing.T) {
	s := startServer(t)
	terminate := func(t *testing.T) {
		t.Helper()
		if n := errCount(t, "select count(*) from pg_stat_activity where usename = 'authenticator'"); n == 0 {
			t.Fatal("the server holds no connection to terminate")
		}
		sql(t, "select pg_terminate_backend(pid) from pg_stat_activity where usename = 'authenticator'")
		// Wait until they are gone, so the next request meets dead connections.
		for i := 0; i < 50 && errCount(t, "select count(*) from pg_stat_activity where usename = 'authenticator'") > 0; i++ {
			time.Sleep(20 * time.Millisecond)
		}
	}
	requests := []struct{ name, method, path, body string }{
		{"a read", http.MethodGet, "/err_items", ""},
		{"a read-write function call", http.MethodPost, "/rpc/err_fn", "{}"},
	}
	for _, r := range requests {
		t.Run(r.name+" right after the termination succeeds on a renewed connection", func(t *testing.T) {
			if res := s.errDo(t, r.method, r.path, r.body); res.Status != 200 {
				t.Fatalf("before: %d %s", res.Status, res.Body)
			}
			terminate(t)
			// The dead connection fails at BEGIN, before anything of the
			// request ran, so pgrest renews the pool and runs it again.
			if res := s.errDo(t, r.method, r.path, r.body); res.Status != 200 {
				t.Fatalf("right after: %d %s", res.Status, res.Body)
			}
			if res := s.errDo(t, r.method, r.path, r.body); res.Status != 200 {
				t.Fatalf("the request after: %d %s", res.Status, res.Body)
			}
		})
		t.Run(r.name+" a while after the termination succeeds", func(t *testing.T) {
			if res := s.errDo(t, r.method, r.path, r.body); res.Status != 200 {
				t.Fatalf("before: %d %s", res.Status, res.Body)
			}
			terminate(t)
			time.Sleep(1200 * time.Millisecond) // past the pool's idle health-check threshold
			if res := s.errDo(t, r.method, r.path, r.body); res.Status != 200 {
				t.Fatalf("got %d %s", res.Status, res.Body)
			}
		})
	}
}
