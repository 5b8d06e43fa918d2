// Package browser drives a real headless Chromium against pgrest: a page
// served from one origin calls pgrest on another with postgrest-js and
// supabase-js, as an app does, and the test reads what the page got from
// the dumped DOM. It shows that pgrest's CORS answers satisfy a browser,
// preflights included, and that server_cors_allowed_origins makes the
// browser refuse other origins; and that supabase-js's realtime works
// in a page against pgrest's socket.
//
// Chromium is installed by scripts/browser.sh when missing; the client
// libraries are tests/supabasejs's (npm ci is run there when they are
// missing).
package browser

import (
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// authDSN connects as the authenticator; superDSN as a superuser.
var superDSN, authDSN string

const jwtSecret = "pgrest-browser-secret-that-is-long-enough-0123456789"

// TestMain loads testdata/browser.sql into a fresh database of a throwaway
// cluster and runs the tests.
func TestMain(m *testing.M) {
	// wal_level = logical: the realtime page hears of inserts.
	db := pgresttest.MustSetUpWith("pgrest_browser", pgtest.Options{LogicalReplication: true}, pgresttest.Files("testdata/browser.sql"))
	superDSN, authDSN = db.SuperDSN, db.AuthenticatorDSN()
	db.Run(m)
}
