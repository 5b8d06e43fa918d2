package realtimesocket

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// resumeSpec is the postgres_changes config the resume tests join with.
var resumeSpec = map[string]any{"event": "INSERT", "schema": "api", "table": "rt_todos"}

// dropAndWait closes c's connection abruptly (no phx_leave, no close
// frame) and waits until the server has stored a resume point since
// (one expiring a window after the drop or later; those that sockets of
// earlier tests left expire sooner). A change committed before that
// could be written to the dead connection and counted as delivered.
func dropAndWait(t *testing.T, c *client, window time.Duration) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db.SuperDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var before time.Time
	if err := conn.QueryRow(ctx, `select now()`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	_ = c.conn.CloseNow()
	for attempt := 0; ; attempt++ {
		var n int
		err := conn.QueryRow(ctx, `select count(*) from realtime.resume_points where expires_at >= $1::timestamptz + $2::interval`,
			before, window).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if attempt == 200 {
			t.Fatalf("no resume point stored after the drop")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// uniqueSub is a subject no other test (or run of this one) uses: a
// resume point is keyed by it.
func uniqueSub(name string) string {
	return name + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
}

// insertTitles inserts a row of owner per title, each in its own
// transaction.
func insertTitles(t *testing.T, owner string, titles ...string) {
	t.Helper()
	for _, title := range titles {
		execSQL(t, fmt.Sprintf(`insert into api.rt_todos (owner, title) values ('%s', '%s')`, owner, title))
	}
}

// expectTitles reads the next postgres_changes of topic and checks that
// they are the inserts of titles, in that order.
func expectTitles(t *testing.T, c *client, topic string, titles ...string) {
	t.Helper()
	for _, want := range titles {
		m := c.expect(topic, "postgres_changes")
		data, _ := m.Payload["data"].(map[string]any)
		rec, _ := data["record"].(map[string]any)
		if rec["title"] != want {
			t.Fatalf("got %v, want the insert of %q", m.Payload, want)
		}
	}
}

// expectNoChange checks that nothing but a heartbeat's reply comes next.
func expectNoChange(t *testing.T, c *client) {
	t.Helper()
	hb := c.send("", "phoenix", "heartbeat", map[string]any{})
	for {
		m := c.read()
		if m.Event == "postgres_changes" {
			t.Fatalf("an extra change: %v", m.Payload)
		}
		if m.Ref == hb {
			return
		}
	}
}

// subscribeTodos opens a socket of tok on s and joins topic for the
// inserts of api.rt_todos, up to "Subscribed to PostgreSQL".
func subscribeTodos(t *testing.T, s *pgresttest.Server, tok, vsn, topic string) *client {
	t.Helper()
	c := dial(t, s, tok, vsn)
	c.join(topic, changesConfig(resumeSpec))
	if sys := c.expect(topic, "system"); sys.Payload["status"] != "ok" {
		t.Fatalf("join %s: %v", topic, sys.Payload)
	}
	return c
}

// clearResumePoints forgets what earlier tests left.
func clearResumePoints(t *testing.T) {
	t.Helper()
	execSQL(t, `delete from realtime.resume_points`)
}

// TestResumeAfterDrop drops a subscribed client's socket without
// phx_leave: the changes committed before it rejoins (same token, topic
// and config, as realtime-js rejoins by itself) reach it once each, in
// commit order, then the live ones; another user's rejoin gets none of
// them.
func TestResumeAfterDrop(t *testing.T) {
	clearResumePoints(t)
	s := pgresttest.StartWith(t, directives("realtime_publication pgrest_realtime", "realtime_node_name resume_test"), pgresttest.Options{})
	const topic = "realtime:todos-resume"
	r1, r2 := uniqueSub("r1"), uniqueSub("r2")
	tok := userToken(t, r1)
	c := subscribeTodos(t, s, tok, "2.0.0", topic)
	insertTitles(t, r1, "before-1", "before-2")
	expectTitles(t, c, topic, "before-1", "before-2")

	// Another user on the same topic with the same config: it must not
	// take r1's resume point.
	o := subscribeTodos(t, s, userToken(t, r2), "2.0.0", topic)

	dropAndWait(t, c, 30*time.Second)
	insertTitles(t, r1, "missed-1", "missed-2", "missed-3")
	insertTitles(t, r2, "missed-by-r2")
	expectTitles(t, o, topic, "missed-by-r2")
	_ = o.conn.CloseNow()

	// r2 rejoins on a new socket: its own resume point, none of r1's
	// rows (row-level security would hide them anyway: r2 owns the row
	// it gets next, and gets nothing before it).
	o2 := subscribeTodos(t, s, userToken(t, r2), "2.0.0", topic)

	c2 := subscribeTodos(t, s, tok, "2.0.0", topic)
	expectTitles(t, c2, topic, "missed-1", "missed-2", "missed-3")
	insertTitles(t, r1, "live-1")
	expectTitles(t, c2, topic, "live-1")
	expectNoChange(t, c2)

	insertTitles(t, r2, "r2-live")
	expectTitles(t, o2, topic, "r2-live")
	expectNoChange(t, o2)

	// A third socket of r1, joining fresh after the point was taken,
	// gets only live changes.
	c3 := subscribeTodos(t, s, tok, "2.0.0", topic)
	insertTitles(t, r1, "live-2")
	expectTitles(t, c3, topic, "live-2")
	expectTitles(t, c2, topic, "live-2")
	expectNoChange(t, c3)
}

// TestResumeAfterLeave: a channel left with phx_leave is not resumed.
func TestResumeAfterLeave(t *testing.T) {
	clearResumePoints(t)
	s := pgresttest.StartWith(t, directives("realtime_publication pgrest_realtime", "realtime_node_name resume_leave"), pgresttest.Options{})
	const topic = "realtime:todos-resume-leave"
	r3 := uniqueSub("r3")
	tok := userToken(t, r3)
	c := dial(t, s, tok, "2.0.0")
	ref := c.join(topic, changesConfig(resumeSpec))
	c.expect(topic, "system")
	// A watcher on another topic: once it has the row, so has the feed
	// (the rejoin would otherwise get it live, as any join would).
	w := subscribeTodos(t, s, tok, "2.0.0", "realtime:todos-resume-watch")
	leave := c.send(ref, topic, "phx_leave", map[string]any{})
	c.expectReply(leave)
	_ = c.conn.CloseNow()
	insertTitles(t, r3, "after-leave")
	expectTitles(t, w, "realtime:todos-resume-watch", "after-leave")

	c2 := subscribeTodos(t, s, tok, "2.0.0", topic)
	insertTitles(t, r3, "live")
	expectTitles(t, c2, topic, "live")
}

// TestResumeWindowExpires: a rejoin after realtime_resume_window gets
// only the live changes.
func TestResumeWindowExpires(t *testing.T) {
	clearResumePoints(t)
	s := pgresttest.StartWith(t, directives("realtime_publication pgrest_realtime", "realtime_node_name resume_expiry",
		"realtime_resume_window 1s"), pgresttest.Options{})
	const topic = "realtime:todos-resume-expiry"
	r4 := uniqueSub("r4")
	tok := userToken(t, r4)
	c := subscribeTodos(t, s, tok, "2.0.0", topic)
	w := subscribeTodos(t, s, tok, "2.0.0", "realtime:todos-expiry-watch")
	dropAndWait(t, c, time.Second)
	insertTitles(t, r4, "expired")
	expectTitles(t, w, "realtime:todos-expiry-watch", "expired")
	// Past the window: the stored point has expired, and so has the
	// node's copy of the change.
	time.Sleep(3 * time.Second)

	c2 := subscribeTodos(t, s, tok, "2.0.0", topic)
	insertTitles(t, r4, "live")
	expectTitles(t, c2, topic, "live")
}

// TestResumeOnAnotherNode drops a client of node1 and rejoins it on
// node2: node2 sends what was committed in between, once, then the live
// changes.
func TestResumeOnAnotherNode(t *testing.T) {
	clearResumePoints(t)
	port, err := pgresttest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	site := pgresttest.Site(port, directives("realtime_publication pgrest_realtime", "realtime_node_name resume_node2"), "")
	n1 := pgresttest.StartWith(t, directives("realtime_publication pgrest_realtime", "realtime_node_name resume_node1"),
		pgresttest.Options{Sites: site})
	n2 := &pgresttest.Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port)}
	const topic = "realtime:todos-resume-nodes"
	r5 := uniqueSub("r5")
	tok := userToken(t, r5)
	c := subscribeTodos(t, n1, tok, "2.0.0", topic)
	insertTitles(t, r5, "seen-on-1")
	expectTitles(t, c, topic, "seen-on-1")

	dropAndWait(t, c, 30*time.Second)
	insertTitles(t, r5, "missed-1", "missed-2")

	c2 := subscribeTodos(t, n2, tok, "1.0.0", topic)
	expectTitles(t, c2, topic, "missed-1", "missed-2")
	insertTitles(t, r5, "live-on-2")
	expectTitles(t, c2, topic, "live-on-2")
	expectNoChange(t, c2)
}
