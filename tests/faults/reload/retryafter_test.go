package reload

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// expectRetryAfter checks res is status with code and says when to retry.
func expectRetryAfter(t *testing.T, res *pgresttest.Response, status int, code string) {
	t.Helper()
	res.ExpectError(t, status, code)
	if got := res.Header.Get("Retry-After"); got != "1" {
		t.Errorf("%d %s: Retry-After %q, want 1", status, code, got)
	}
}

// A database that cannot be reached is 503 with Retry-After, as PostgREST
// answers it.
func TestUnreachableDatabaseIs503WithRetryAfter(t *testing.T) {
	port, err := pgresttest.FreePort() // closed again once FreePort returns
	if err != nil {
		t.Fatal(err)
	}
	app := fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/postgres", fixtures.Authenticator, fixtures.AuthenticatorPassword, port)
	s := pgresttest.Start(t, directives(app), "db_pool_acquisition_timeout 2s")
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPost} {
		body := ""
		if method == http.MethodPost {
			body = `{"id": 1000, "name": "x"}`
		}
		expectRetryAfter(t, s.Do(t, method, "/items", body), http.StatusServiceUnavailable, "PGRST000")
	}
}

// A request that waits for a pool connection past
// db_pool_acquisition_timeout is 504 PGRST003 with Retry-After.
func TestPoolTimeoutIs504WithRetryAfter(t *testing.T) {
	dsn := testDatabase(t, "pgrest_faults_reload_pooltimeout")
	s := startServer(t, dsn, "db_pool 1", "db_pool_acquisition_timeout 500ms")
	s.Get(t, "/items?limit=1").ExpectStatus(t, http.StatusOK)

	// A call holds the only connection until it is released.
	release, held := pgresttest.HoldConnections(t, s, dsn, "wait_for_lock", 504, 1)
	expectRetryAfter(t, s.Get(t, "/items?limit=1"), http.StatusGatewayTimeout, "PGRST003")
	release()
	if h := <-held; h != nil && h.Status != http.StatusOK {
		t.Errorf("the call holding the connection got %d %s, want 200", h.Status, h.Body)
	}
}
