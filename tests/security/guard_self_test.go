package security

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The checks of the injection test only mean something if what they look
// for is there: these tests make each of them fire once on purpose.

func TestTheSecretIsADatabaseSetting(t *testing.T) {
	got := superQuery(t, "select current_setting('app.jwt_secret')")
	if got != secret {
		t.Fatalf("app.jwt_secret is %q, want the run's secret", got)
	}
}

func TestTheTripwireRecordsACallFromAReadOnlyTransaction(t *testing.T) {
	before := dbState(t)
	ctx, conn := superConn(t)
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "set local role web_anon"); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := tx.QueryRow(ctx, "select private.trip('self test')").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got != "TRIPPED-c0ffee" {
		t.Errorf("private.trip() = %q", got)
	}
	after := dbState(t)
	if after == before || !strings.Contains(stateDiff(before, after), "self test") {
		t.Fatalf("the state did not record the trip: %s", stateDiff(before, after))
	}
	resetCanaries(t)
	if again := dbState(t); again != before {
		t.Fatalf("resetCanaries did not restore the state: %s", stateDiff(before, again))
	}
}

func TestTheResponseChecksSeeTheCanaries(t *testing.T) {
	s := startServer(t)
	client := newClient(1)
	defer client.CloseIdleConnections()

	visible := send(client, s.URL, probe{point: "self test", method: "GET", target: "/canary_visible"})
	found := &findings{}
	check(found, probe{point: "self test", method: "GET", target: "/canary_visible"}, visible)
	if visible.status != 200 || !strings.Contains(found.report(), "leak of a row of api.canary_visible") {
		t.Errorf("reading canary_visible directly: status %d, findings %s", visible.status, found.report())
	}

	hidden := send(client, s.URL, probe{point: "self test", method: "GET", target: "/canary_hidden"})
	if hidden.status != 401 || holds(hidden, "HIDDENCANARY-8b1f2c") != "" {
		t.Errorf("reading canary_hidden as web_anon: status %d, body %s; want 401 without its rows", hidden.status, hidden.body)
	}

	column := send(client, s.URL, probe{point: "self test", method: "GET", target: "/items?select=secret_note"})
	if column.status < 400 || column.status >= 500 {
		t.Errorf("reading items.secret_note as web_anon: status %d, body %s; want a 4xx", column.status, column.body)
	}
	if n := superQuery(t, "select count(*)::text from api.items where secret_note = 'COLSECRET-5d0c1e7a-items'"); n == "0" {
		t.Errorf("no item holds the secret note the checks look for")
	}
}

// superConn connects as the superuser for the rest of the test, with a
// context that ends after 30 seconds.
func superConn(t testing.TB) (context.Context, *pgx.Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	conn, err := pgx.Connect(ctx, db.SuperDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return ctx, conn
}

// superQuery runs a query returning one text value as the superuser.
func superQuery(t testing.TB, query string) string {
	t.Helper()
	ctx, conn := superConn(t)
	var s string
	if err := conn.QueryRow(ctx, query).Scan(&s); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return s
}
