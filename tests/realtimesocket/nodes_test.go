package realtimesocket

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// startTwoNodes serves two pgrest handlers on one database, each a
// realtime node of its own (its own sockets, topics and listener), on two
// ports of one Caddy: what reaches one node's clients from the other's
// goes through PostgreSQL's NOTIFY.
func startTwoNodes(t *testing.T) (*pgresttest.Server, *pgresttest.Server) {
	t.Helper()
	port, err := pgresttest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	site := pgresttest.Site(port, directives("realtime_node_name node2"), "")
	s1 := pgresttest.StartWith(t, directives("realtime_node_name node1"), pgresttest.Options{Sites: site})
	return s1, &pgresttest.Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port)}
}

// TestTwoNodes sends broadcasts and presence between clients of one
// channel on two nodes.
func TestTwoNodes(t *testing.T) {
	n1, n2 := startTwoNodes(t)
	const topic = "realtime:room-nodes"
	a := dial(t, n1, "", "2.0.0")
	b := dial(t, n2, "", "1.0.0")
	aRef := a.join(topic, config(false, false, "alice", true, false))
	bRef := b.join(topic, config(false, false, "bob", true, false))
	a.expect(topic, "presence_state")
	b.expect(topic, "presence_state")

	// Each node's listener connects once Caddy has started it: a sends
	// until b hears, then every message after gets through.
	heard := make(chan struct{})
	go func() {
		for {
			select {
			case <-heard:
				return
			case <-time.After(200 * time.Millisecond):
			}
			a.send(aRef, topic, "broadcast", map[string]any{"type": "broadcast", "event": "hello", "payload": map[string]any{"from": "node1"}})
		}
	}()
	m0 := b.expect(topic, "broadcast")
	close(heard)
	if m0.Payload["event"] != "hello" {
		t.Errorf("b got %v", m0.Payload)
	}
	// Drain the hellos still on their way: a heartbeat of a, then one of b.
	hbA := a.send("", "phoenix", "heartbeat", map[string]any{})
	a.expectReply(hbA)
	time.Sleep(500 * time.Millisecond)
	for {
		hbB := b.send("", "phoenix", "heartbeat", map[string]any{})
		extra := false
		for {
			m := b.read()
			if m.Ref == hbB {
				break
			}
			extra = true
		}
		if !extra {
			break
		}
	}

	// Longer than one NOTIFY: through realtime.node_messages.
	long := strings.Repeat("z", 20000)
	b.send(bRef, topic, "broadcast", map[string]any{"type": "broadcast", "event": "long", "payload": map[string]any{"s": long}})
	m := a.expect(topic, "broadcast")
	if p, _ := m.Payload["payload"].(map[string]any); m.Payload["event"] != "long" || p["s"] != long {
		t.Errorf("a got event %v, %d bytes", m.Payload["event"], len(fmt.Sprint(p["s"])))
	}

	// Presence: alice's track on node1 shows on node2.
	a.send(aRef, topic, "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"at": "node1"}})
	for {
		d := b.expect(topic, "presence_diff")
		if ms := metasOf(t, d.Payload["joins"], "alice"); len(ms) == 1 && ms[0]["at"] == "node1" {
			break
		}
	}
	// A client joining node2 later gets alice in its presence_state.
	c := dial(t, n2, "", "2.0.0")
	c.join(topic, config(false, false, "carol", true, false))
	st := c.expect(topic, "presence_state")
	if ms := metasOf(t, st.Payload, "alice"); len(ms) != 1 {
		t.Errorf("presence_state on node2: %v", st.Payload)
	}
	// alice's socket closes on node1: node2's clients see her leave.
	_ = a.conn.Close(websocket.StatusNormalClosure, "")
	for {
		d := b.expect(topic, "presence_diff")
		if len(metasOf(t, d.Payload["leaves"], "alice")) == 1 {
			break
		}
	}
	// realtime.send reaches both nodes once.
	execSQL(t, `select realtime.send('{"n":1}', 'from-sql', 'room-nodes', false)`)
	if m := b.expect(topic, "broadcast"); m.Payload["event"] != "from-sql" {
		t.Errorf("b got %v", m.Payload)
	}
	if m := c.expect(topic, "broadcast"); m.Payload["event"] != "from-sql" {
		t.Errorf("c got %v", m.Payload)
	}
	hb := b.send("", "phoenix", "heartbeat", map[string]any{})
	for {
		m := b.read()
		if m.Event == "broadcast" && m.Payload["event"] == "from-sql" {
			t.Fatalf("b got the database's broadcast twice")
		}
		if m.Ref == hb {
			break
		}
	}
}
