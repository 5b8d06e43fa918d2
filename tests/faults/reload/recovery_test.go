package reload

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// A database down when pgrest starts: requests answer 503 PGRST000 at
// once, with the cause as it is now, and the first request after the
// database is back succeeds within two seconds, however long it was away.
// Before, recovery waited for the load backoff, which grows with the
// outage (7.5s after an 8s one).
func TestRecoveryAfterTheDatabaseWasDownAtStart(t *testing.T) {
	dsn := testDatabase(t, "pgrest_faults_reload_recovery")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("the cluster's URL %q: %v", dsn, err)
	}
	g := newGate(t, u.Host)
	u.Host = g.addr
	app := pgtest.DSNFor(u.String(), fixtures.Authenticator, fixtures.AuthenticatorPassword)
	s := startServerAt(t, app)

	const outage = 8 * time.Second
	start := time.Now()
	var slowest time.Duration
	outageAnswers := 0
	for time.Since(start) < outage {
		t0 := time.Now()
		res := s.Get(t, "/items?limit=1")
		took := time.Since(t0)
		slowest = max(slowest, took)
		outageAnswers++
		e := res.ExpectError(t, http.StatusServiceUnavailable, "PGRST000")
		if e["details"] != "Nothing accepts connections at the address of db_uri." {
			t.Errorf("during the outage: details %q, want the refused connection", e["details"])
		}
		if res.Header.Get("Retry-After") == "" {
			t.Error("a 503 during the outage has no Retry-After")
		}
		time.Sleep(250 * time.Millisecond)
	}
	if slowest > time.Second {
		t.Errorf("a 503 during the outage took %s, want it at once (< 1s)", slowest.Round(time.Millisecond))
	}

	g.open(t)
	up := time.Now()
	var recovered time.Duration
	for {
		res := s.Get(t, "/items?limit=1")
		if res.Status == http.StatusOK {
			recovered = time.Since(up)
			break
		}
		if time.Since(up) > 30*time.Second {
			t.Fatalf("still %d %s 30s after the database came back", res.Status, res.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("database down at start for %s: %d answers of 503 PGRST000, slowest %s; first success %s after it came back",
		outage, outageAnswers, slowest.Round(time.Millisecond), recovered.Round(time.Millisecond))
	if recovered > 2*time.Second {
		t.Errorf("first success %s after the database came back, want within 2s", recovered.Round(time.Millisecond))
	}
}

// While nobody asks, the loader keeps trying at least every second, so the
// first request after a long quiet outage is served at once.
func TestRecoveryWithoutRequestsDuringTheOutage(t *testing.T) {
	dsn := testDatabase(t, "pgrest_faults_reload_quiet")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("the cluster's URL %q: %v", dsn, err)
	}
	g := newGate(t, u.Host)
	u.Host = g.addr
	app := pgtest.DSNFor(u.String(), fixtures.Authenticator, fixtures.AuthenticatorPassword)
	s := startServerAt(t, app)
	s.Get(t, "/items?limit=1").ExpectError(t, http.StatusServiceUnavailable, "PGRST000")

	time.Sleep(8 * time.Second) // the backoff grows, untouched by requests
	g.open(t)
	time.Sleep(2 * time.Second)
	t0 := time.Now()
	res := s.Get(t, "/items?limit=1")
	t.Logf("quiet outage of 8s: 2s after the database came back a request got %d in %s",
		res.Status, time.Since(t0).Round(time.Millisecond))
	res.ExpectStatus(t, http.StatusOK)
}
