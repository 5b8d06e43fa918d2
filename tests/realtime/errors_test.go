package realtime

import (
	"context"
	"errors"
	"testing"

	"github.com/pgrest/caddy-pgrest/realtime/changes"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// Bad specs get Supabase Realtime's replies (its subscriptions.ex and
// subscription_check_filters, texts from its tests) and leave the feed
// streaming for everyone else.
func TestSubscribeErrors(t *testing.T) {
	e := newEnv(t, "rt_errors", changes.Config{})
	const exception = "Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: "
	const notEnabled = "Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: "
	cases := []struct {
		who  changes.Identity
		spec changes.Spec
		want string
	}{
		{anon, changes.Spec{Event: "*", Schema: "public", Table: "notes", Filter: "subject=eq.hey"},
			exception + `[event: *, schema: public, table: notes, filters: [{"subject", "eq", "hey", false}], select: nil]. Exception: ERROR P0001 (raise_exception) invalid column for filter subject`},
		{anon, changes.Spec{Event: "*", Schema: "public", Table: "notes", Filter: "id=eq.hey"},
			exception + `[event: *, schema: public, table: notes, filters: [{"id", "eq", "hey", false}], select: nil]. Exception: ERROR 22P02 (invalid_text_representation) invalid input syntax for type integer: "hey"`},
		{user("alice"), changes.Spec{Event: "INSERT", Schema: "public", Table: "todos", Filter: "secret=eq.x"},
			exception + `[event: INSERT, schema: public, table: todos, filters: [{"secret", "eq", "x", false}], select: nil]. Exception: ERROR P0001 (raise_exception) invalid column for filter secret`},
		{anon, changes.Spec{Event: "*", Schema: "public", Table: "notes", Filter: "subject=foo.hey"},
			"Error parsing `filter` params: [\"foo\", \"hey\"]"},
		{anon, changes.Spec{Event: "*", Schema: "public", Table: "doesnotexist"},
			notEnabled + "[event: *, schema: public, table: doesnotexist, filters: [], select: nil]"},
		{user("alice"), changes.Spec{Event: "*", Schema: "public", Table: "unpublished"},
			notEnabled + "[event: *, schema: public, table: unpublished, filters: [], select: nil]"},
		{anon, changes.Spec{Event: "*", Schema: "public", Table: "hidden"},
			exception + "[event: *, schema: public, table: hidden, filters: [], select: nil]. Exception: ERROR 42501 (insufficient_privilege) permission denied for table hidden"},
	}
	for _, c := range cases {
		_, _, err := e.feed.Subscribe(context.Background(), c.who, []changes.Spec{c.spec}, func(changes.Delivery) {})
		var se *changes.SubscribeError
		if !errors.As(err, &se) || se.Message != c.want {
			t.Errorf("Subscribe(%+v) = %v\nwant %s", c.spec, err, c.want)
		}
	}
	// The feed still streams.
	_, _, s := subscribe(t, e, anon, changes.Spec{Event: "INSERT", Schema: "public", Table: "notes"})
	pgtest.Exec(t, e.dsn, `insert into notes values (1, 'one', 1)`)
	s.wait(t, 1)
}

// A table without a primary key cannot be checked row by row: Supabase
// sends its changes with "Error 400: Bad Request, no primary key" and
// nothing of the row.
func TestNoPrimaryKey(t *testing.T) {
	e := newEnv(t, "rt_nokey", changes.Config{})
	_, _, s := subscribe(t, e, user("alice"), changes.Spec{Event: "*", Schema: "public", Table: "nokey"})
	pgtest.Exec(t, e.dsn, `insert into nokey values ('x')`)
	got := s.wait(t, 1)[0]
	if want := `{"errors":["Error 400: Bad Request, no primary key"],"schema":"public","table":"nokey","type":"INSERT"}`; got.raw != want {
		t.Errorf("payload %s, want %s", got.raw, want)
	}
}

// Close drops the slot it created.
func TestCloseDropsSlot(t *testing.T) {
	e := newEnv(t, "rt_close", changes.Config{})
	count := func() int {
		conn := pgtest.Connect(t, e.dsn)
		var n int
		if err := conn.QueryRow(context.Background(), "select count(*) from pg_replication_slots where slot_name = $1", e.slot).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 1 {
		t.Fatalf("%d slots named %s while the feed runs, want 1", n, e.slot)
	}
	if err := e.feed.Close(); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Errorf("%d slots named %s after Close, want 0", n, e.slot)
	}
}

// A change larger than max_record_bytes is sent as Supabase sends it:
// "Error 413: Payload Too Large", with only the values of at most 64
// bytes.
func TestPayloadTooLarge(t *testing.T) {
	e := newEnv(t, "rt_large", changes.Config{MaxRecordBytes: 200})
	_, _, s := subscribe(t, e, anon, changes.Spec{Event: "INSERT", Schema: "public", Table: "notes"})
	pgtest.Exec(t, e.dsn, `insert into notes values (1, repeat('x', 300), 5)`)
	got := s.wait(t, 1)[0]
	if len(got.Data.Errors) != 1 || got.Data.Errors[0] != "Error 413: Payload Too Large" {
		t.Errorf("errors %v, want Error 413", got.Data.Errors)
	}
	if _, ok := got.Data.Record["body"]; ok || got.Data.Record["id"] != float64(1) || got.Data.Record["n"] != float64(5) {
		t.Errorf("record %v, want id and n without body", got.Data.Record)
	}
}
