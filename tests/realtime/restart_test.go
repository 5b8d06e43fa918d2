package realtime

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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
