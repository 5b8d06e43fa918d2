// Package realtimesocket tests pgrest's realtime socket (package realtime)
// through a real Caddy config, with a WebSocket client speaking
// Supabase Realtime's protocol as realtime-js does: both serializers,
// the binary broadcast frames, every error reply, heartbeats, leaves,
// tokens and their expiry, broadcast, presence, private channels
// authorized by row-level security, broadcasts sent from SQL, two nodes
// on one database, and a slow consumer.
package realtimesocket

import (
	"context"
	"os"
	"testing"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// secret is the servers' HS256 passphrase.
const secret = "pgrest-realtime-tests-secret-long-enough-0123456"

var db *pgresttest.DB

// runAsCaddy makes the test binary run Caddy's command line instead of
// the tests: a node in a process of its own (late_node_test.go).
const runAsCaddy = "PGREST_REALTIMESOCKET_RUN_CADDY"

func TestMain(m *testing.M) {
	if os.Getenv(runAsCaddy) == "1" {
		caddycmd.Main()
		return
	}
	// wal_level = logical: postgres_changes_test.go serves the change feed.
	db = pgresttest.MustSetUpWith("pgrest_realtime", pgtest.Options{LogicalReplication: true}, pgresttest.ReadFixture,
		pgresttest.SQL("realtime.sql", fixtures.RealtimeSQL), pgresttest.SQL("session_state.sql", fixtures.SessionStateSQL))
	db.Run(m)
}

// directives are a realtime server's subdirectives.
func directives(lines ...string) map[string]string {
	return pgresttest.Directives(map[string]string{
		"db_uri":           pgresttest.Quote(db.AuthenticatorDSN()),
		"db_schemas":       "api",
		"db_anon_role":     fixtures.AnonRole,
		"jwt_secret":       secret,
		"realtime_enabled": "true",
	}, lines...)
}

// execSQL runs statements as a superuser, as psql would.
func execSQL(t *testing.T, sql string) {
	t.Helper()
	if err := pgtest.ExecSQL(context.Background(), db.SuperDSN, sql); err != nil {
		t.Fatal(err)
	}
}
