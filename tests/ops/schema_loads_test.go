package ops

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// A start loads the schema cache once, however many requests arrive while
// it loads, and a config reload loads it once more. Requests that came in
// during the first load used to ask for a second one, which retired every
// statement the first requests had prepared.
func TestStartLoadsTheSchemaCacheOnce(t *testing.T) {
	s := startSite(t, "db_uri "+pgresttest.Quote(authDSN(fixtures.AuthenticatorPassword)))
	loads := func() int { return len(logLines(t, s.Log, "schema cache loaded")) }
	// Sent at once, they arrive while the first load runs and wait for it.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if code, body := get(t, http.MethodGet, s.API+"/clients?id=eq.1"); code != http.StatusOK {
				t.Errorf("a read during the first load = %d %s", code, body)
			}
		})
	}
	wg.Wait()
	// Long enough for a second load, had one been asked for, to end.
	time.Sleep(time.Second)
	if n := loads(); n != 1 {
		t.Fatalf("after a start: %d schema cache loads, want 1", n)
	}

	// The same config again is a config reload: the source is kept and
	// reads the schema again, as a restart would.
	s.load(t)
	eventually(t, 30*time.Second, "no schema cache load after a config reload", func() bool { return loads() >= 2 })
	time.Sleep(time.Second)
	if n := loads(); n != 2 {
		t.Fatalf("after a config reload: %d schema cache loads, want 2", n)
	}
}
