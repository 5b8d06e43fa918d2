package jwks

import (
	"net/http"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// reloaded is what pgrest logs for each in-database configuration reload.
const reloaded = "configuration reloaded"

// reloadConfig sends n `NOTIFY pgrst, 'reload config'`, each in its own
// transaction (PostgreSQL folds equal notifications of one transaction
// into one), and waits until pgrest has logged that many more reloads.
func reloadConfig(t *testing.T, p *pgrest, n int) {
	t.Helper()
	before := logCount(t, p.log, "info", reloaded, "")
	for range n {
		pgtest.Exec(t, db.SuperDSN, `notify pgrst, 'reload config'`)
	}
	deadline := time.Now().Add(60 * time.Second)
	for logCount(t, p.log, "info", reloaded, "") < before+n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d configuration reloads logged in 60 s", logCount(t, p.log, "info", reloaded, "")-before, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// An in-database configuration reload builds a new configuration; with the
// same key set URL it keeps the keys fetched, and their refresh schedule
// and limits, instead of fetching at once: NOTIFYs cannot make pgrest
// hammer the provider, and a provider that fails then does not leave
// pgrest without keys.
func TestConfigReloadKeepsFetchedKeys(t *testing.T) {
	const path = "/reloaded/jwks.json"
	provider := newSigner(t, "provider")
	publishAt(t, path, provider.jwk())
	p := servePgrest(t, providerURL+path)
	p.expectStatus(t, "a token before any reload", provider.token(t), http.StatusOK)

	t.Run("reloads do not fetch the key set again", func(t *testing.T) {
		reloadConfig(t, p, 50)
		// One at start; a second would be a refresh falling due, which
		// Cache-Control max-age=300 puts far beyond this test.
		if n := fetchesOf(t, path); n > 2 {
			t.Errorf("the provider was asked for the key set %d times across 50 reloads, want at most 2", n)
		}
		p.expectStatus(t, "a token after 50 reloads", provider.token(t), http.StatusOK)
	})

	t.Run("a reload while the provider fails keeps the last good keys", func(t *testing.T) {
		failAt(t, path)
		reloadConfig(t, p, 1)
		p.expectStatus(t, "a token of the last fetched key, the provider answering 500", provider.token(t), http.StatusOK)
	})
}
