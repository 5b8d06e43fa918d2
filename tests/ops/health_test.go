package ops

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

func TestLiveAndReadyOnAHealthSite(t *testing.T) {
	s := startSite(t, "db_uri "+pgresttest.Quote(authDSN(fixtures.AuthenticatorPassword)))
	s.waitReady(t)
	if code, body := get(t, http.MethodGet, s.Health+"/live"); code != http.StatusOK || body != "" {
		t.Errorf("/live = %d %q, want 200 and no body", code, body)
	}
	if code, _ := get(t, http.MethodHead, s.Health+"/ready"); code != http.StatusOK {
		t.Errorf("HEAD /ready = %d, want 200", code)
	}
	if code, _ := get(t, http.MethodPost, s.Health+"/ready"); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /ready = %d, want 405", code)
	}
	// The API's own paths are untouched: a table is still read there.
	if code, body := get(t, http.MethodGet, s.API+"/clients?select=id&id=eq.1"); code != http.StatusOK || body != `[{"id":1}]` {
		t.Errorf("GET /clients = %d %s", code, body)
	}
}

func TestNotReadyWhileTheDatabaseRefusesTheLogin(t *testing.T) {
	s := startSite(t, "db_uri "+pgresttest.Quote(authDSN("a-wrong-password")), "db_channel_enabled false")
	// Live: the process serves. Not ready: the database refuses pgrest.
	if code, _ := get(t, http.MethodGet, s.Health+"/live"); code != http.StatusOK {
		t.Errorf("/live = %d, want 200", code)
	}
	for range 3 {
		if code, body := get(t, http.MethodGet, s.Health+"/ready"); code != http.StatusServiceUnavailable || body != "" {
			t.Fatalf("/ready = %d %q, want 503 and no body (the cause is not for the public)", code, body)
		}
	}
	// The admin API tells the operator why.
	var code int
	var body string
	eventually(t, 30*time.Second, "admin /pgrest/ready does not name the failed password authentication", func() bool {
		code, body = get(t, http.MethodGet, s.Admin+"/pgrest/ready")
		return strings.Contains(body, "password authentication failed")
	})
	if code != http.StatusServiceUnavailable {
		t.Fatalf("admin /pgrest/ready = %d %s, want 503", code, body)
	}
}

func TestReadyFollowsTheDatabaseDownAndUp(t *testing.T) {
	s := startSite(t, "db_uri "+pgresttest.Quote(authDSN(fixtures.AuthenticatorPassword)))
	s.waitReady(t)
	// Stop the authenticator from logging in: the pool's connections go
	// with pg_terminate_backend, and new ones are refused.
	superExec(t, "alter role authenticator nologin")
	t.Cleanup(func() { superExec(t, "alter role authenticator login") })
	superExec(t, "select pg_terminate_backend(pid) from pg_stat_activity where usename = 'authenticator'")
	eventually(t, 30*time.Second, "/ready stays 200 while the database refuses the authenticator", func() bool {
		code, _ := get(t, http.MethodGet, s.Health+"/ready")
		return code == http.StatusServiceUnavailable
	})
	superExec(t, "alter role authenticator login")
	s.waitReady(t)
}
