package realtimesocket

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// TestRestartMidStream restarts PostgreSQL while a client is subscribed
// through the socket: every change committed, before and after, reaches
// it exactly once, and broadcasts from SQL flow again once the node's
// listener is back.
func TestRestartMidStream(t *testing.T) {
	s := pgresttest.StartWith(t, directives("realtime_publication pgrest_realtime", "realtime_node_name restart_test"), pgresttest.Options{})
	const topic = "realtime:todos-restart"
	c := dial(t, s, userToken(t, "u9"), "2.0.0")
	c.join(topic, changesConfig(map[string]any{"event": "INSERT", "schema": "api", "table": "rt_todos"}))
	c.expect(topic, "system")

	const rows = 20
	// Titles of this run's own, so that a run again (-count) writes rows.
	run := time.Now().UnixNano()
	title := func(i int) string { return fmt.Sprintf("restart-%d-%d", run, i) }
	insert := func(i int) {
		t.Helper()
		// Run again until it commits: a commit whose outcome a broken
		// connection hid is not repeated (the title is checked first).
		sql := fmt.Sprintf(`insert into api.rt_todos (owner, title) select 'u9', '%s'
			where not exists (select from api.rt_todos where title = '%s')`, title(i), title(i))
		for attempt := 0; ; attempt++ {
			err := pgtest.ExecSQL(context.Background(), db.SuperDSN, sql)
			if err == nil {
				return
			}
			if attempt == 300 {
				t.Fatalf("inserting %d: %v", i, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for i := 0; i < rows/2; i++ {
		insert(i)
	}
	if err := db.Cluster.Restart("fast"); err != nil {
		t.Fatal(err)
	}
	for i := rows / 2; i < rows; i++ {
		insert(i)
	}
	seen := map[string]int{}
	for len(seen) < rows {
		m := c.expect(topic, "postgres_changes")
		data, _ := m.Payload["data"].(map[string]any)
		rec, _ := data["record"].(map[string]any)
		title, _ := rec["title"].(string)
		seen[title]++
		if seen[title] > 1 {
			t.Fatalf("%s delivered twice", title)
		}
	}
	for i := 0; i < rows; i++ {
		if seen[title(i)] != 1 {
			t.Errorf("%s: delivered %d times", title(i), seen[title(i)])
		}
	}

	// The listener reconnects by itself: realtime.send reaches the
	// client again (sent until it does, the listener's return being its
	// own).
	b := dial(t, s, "", "2.0.0")
	b.join("realtime:after-restart", config(false, false, "", false, false))
	got := make(chan struct{})
	go func() {
		for i := 0; ; i++ {
			select {
			case <-got:
				return
			case <-time.After(300 * time.Millisecond):
			}
			_ = pgtest.ExecSQL(context.Background(), db.SuperDSN, `select realtime.send('{}', 'back', 'after-restart', false)`)
		}
	}()
	m := b.expect("realtime:after-restart", "broadcast")
	close(got)
	if m.Payload["event"] != "back" {
		t.Errorf("got %v", m.Payload)
	}
	// No change after the last.
	expectNoChange(t, c)
}
