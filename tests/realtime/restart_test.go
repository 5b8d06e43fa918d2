package realtime

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgrest/caddy-pgrest/realtime/changes"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// PostgreSQL restarted (pg_ctl restart) while changes are committed and
// streamed: the feed reconnects, resumes from its slot, and every change
// committed is delivered exactly once.
func TestPostgresRestart(t *testing.T) {
	e := newEnv(t, "rt_restart", changes.Config{ReconnectMax: 500 * time.Millisecond})
	_, _, s := subscribe(t, e, anon, changes.Spec{Event: "INSERT", Schema: "public", Table: "notes"})
	// insert commits row i, reconnecting through the restart; a commit
	// whose outcome the broken connection hid is run again, and the
	// conflict clause keeps it one row (and one change).
	insert := func(i int) {
		t.Helper()
		for attempt := 0; ; attempt++ {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			conn, err := pgx.Connect(ctx, e.dsn)
			if err == nil {
				_, err = conn.Exec(ctx, "insert into notes (id) values ($1) on conflict do nothing", i)
				conn.Close(context.Background())
			}
			cancel()
			if err == nil {
				return
			}
			if attempt == 300 {
				t.Fatalf("inserting %d: %v", i, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	const rows = 60
	restarted := make(chan error, 1)
	for i := 1; i <= rows; i++ {
		insert(i)
		if i == rows/3 {
			go func() { restarted <- pg.Restart("fast") }()
		}
	}
	if err := <-restarted; err != nil {
		t.Fatal(err)
	}
	conn := pgtest.Connect(t, e.dsn)
	var want []float64
	rowsQ, err := conn.Query(context.Background(), "select id::float8 from notes order by id")
	if err != nil {
		t.Fatal(err)
	}
	want, err = pgx.CollectRows(rowsQ, pgx.RowTo[float64])
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != rows {
		t.Fatalf("%d rows committed, want %d", len(want), rows)
	}
	s.wait(t, rows)
	// Let anything sent twice arrive before counting.
	pgtest.Exec(t, e.dsn, "insert into notes (id) values (1000)")
	s.wait(t, rows+1)
	var ids []float64
	for _, d := range s.snapshot() {
		ids = append(ids, d.Data.Record["id"].(float64))
	}
	if ids[len(ids)-1] != 1000 || !slices.Equal(ids[:len(ids)-1], want) {
		t.Errorf("delivered ids %v, want %v then 1000, each once and in commit order", ids, want)
	}
}

// A node that crashed left its slot behind: started again under the
// same name, the feed takes the slot over instead of failing, streams
// from it, and drops it at Close.
func TestStartTakesOverLeftSlot(t *testing.T) {
	dsn := pg.CreateDatabase(t, "rt_takeover")
	pgtest.Exec(t, dsn, fixture)
	const slot = "pgrest_test_takeover"
	pgtest.Exec(t, dsn, "select pg_create_logical_replication_slot('"+slot+"', 'pgoutput')")
	auth := pgtest.DSNFor(dsn, "authenticator", "secret")
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, auth)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	feed, err := changes.Start(ctx, changes.Config{ConnString: auth, Publication: "pgrest_realtime", SlotName: slot}, pool, nil)
	if err != nil {
		t.Fatalf("Start with the slot a crashed run left: %v", err)
	}
	s := newSink()
	if _, _, err := feed.Subscribe(ctx, anon, []changes.Spec{{Event: "INSERT", Schema: "public", Table: "notes"}}, s.deliver); err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, dsn, "insert into notes (id) values (7)")
	if got := s.wait(t, 1); got[0].Data.Record["id"] != float64(7) {
		t.Errorf("delivered %s", got[0].raw)
	}
	if err := feed.Close(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pgtest.Connect(t, dsn).QueryRow(ctx, "select count(*) from pg_replication_slots where slot_name = $1", slot).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d slots named %s after Close (%v), want 0", n, slot, err)
	}
}
