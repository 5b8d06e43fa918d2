package reload

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// How long the recovery tests wait. How soon pgrest answers during an
// outage and how soon after it the API is back are figures of make bench
// (tests/benchscale), not of these tests: on a shared machine a
// wall-clock bound fails for the neighbours' sake.
const (
	// outage is how long the database stays away: long enough for the
	// loader's backoff to reach its cap.
	outage = 8 * time.Second
	// recoveryTimeout bounds the waits for the database to be used again.
	recoveryTimeout = 30 * time.Second
	// answerTimeout bounds a request during the outage. It is far below
	// outageAcquisitionTimeout, so a request answered within it was
	// answered by a load attempt, not by the timer of its wait.
	answerTimeout            = time.Minute
	outageAcquisitionTimeout = "5m"
)

// startBehindGate makes a database called name and serves it through a
// closed gate (the database down when pgrest starts), with lines applied
// and db_pool_acquisition_timeout outageAcquisitionTimeout.
func startBehindGate(t *testing.T, name string, lines ...string) (*pgresttest.Server, *pgtest.Gate) {
	t.Helper()
	dsn := testDatabase(t, name)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("the cluster's URL %q: %v", dsn, err)
	}
	g := newGate(t, u.Host)
	u.Host = g.Addr
	app := pgtest.DSNFor(u.String(), fixtures.Authenticator, fixtures.AuthenticatorPassword)
	lines = append([]string{"db_pool_acquisition_timeout " + outageAcquisitionTimeout}, lines...)
	return pgresttest.Start(t, directives(app), lines...), g
}

// A database down when pgrest starts: requests answer 503 PGRST000 with
// the cause as it is now, from a load attempt rather than after waiting
// out db_pool_acquisition_timeout, and requests are served again once the
// database is back, however long it was away.
func TestRecoveryAfterTheDatabaseWasDownAtStart(t *testing.T) {
	s, g := startBehindGate(t, "pgrest_faults_reload_recovery")
	client := &http.Client{Timeout: answerTimeout}

	start := time.Now()
	outageAnswers := 0
	for time.Since(start) < outage {
		res, err := s.Try(client, http.MethodGet, "/items?limit=1", "")
		if err != nil {
			t.Fatalf("during the outage: %v: the request waited for db_pool_acquisition_timeout (%s) instead of a load attempt",
				err, outageAcquisitionTimeout)
		}
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

	openGate(t, g)
	afterOutage := 0
	for deadline := time.Now().Add(recoveryTimeout); ; time.Sleep(100 * time.Millisecond) {
		res, err := s.Try(client, http.MethodGet, "/items?limit=1", "")
		if err != nil {
			t.Fatalf("after the outage: %v", err)
		}
		if res.Status == http.StatusOK {
			break
		}
		afterOutage++
		if time.Now().After(deadline) {
			t.Fatalf("still %d %s %s after the database came back", res.Status, res.Body, recoveryTimeout)
		}
	}
	t.Logf("database down at start: %d answers of 503 PGRST000 during the outage, %d after it before the first 200",
		outageAnswers, afterOutage)
}

// While nobody asks, the loader keeps trying: after a quiet outage the
// database sees pgrest connect with no request sent, and the first
// request is served.
func TestRecoveryWithoutRequestsDuringTheOutage(t *testing.T) {
	// No listener: every connection through the gate is the loader's.
	s, g := startBehindGate(t, "pgrest_faults_reload_quiet", "db_channel_enabled false")
	s.Get(t, "/items?limit=1").ExpectError(t, http.StatusServiceUnavailable, "PGRST000")

	time.Sleep(outage) // the backoff grows, untouched by requests
	openGate(t, g)
	for deadline := time.Now().Add(recoveryTimeout); g.Accepted() == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("pgrest did not connect to the database in the %s after it came back, with no request sent", recoveryTimeout)
		}
	}
	s.Get(t, "/items?limit=1").ExpectStatus(t, http.StatusOK)
}
