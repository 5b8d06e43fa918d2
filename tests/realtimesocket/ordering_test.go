package realtimesocket

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// busyHub keeps the node's hub busy until the test ends: senders
// broadcast without pause to a topic many sockets listen to (each
// broadcast takes the hub's lock for its snapshot of the topic), so that
// a step that waits for the lock waits long enough for a client to act
// in between.
func busyHub(t *testing.T, c func() *client, listeners, senders int) {
	t.Helper()
	const busy = "realtime:order-busy"
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for i := 0; i < listeners; i++ {
		l := c()
		l.join(busy, config(false, false, "", false, false))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if _, _, err := l.conn.Read(ctx); err != nil {
					return
				}
			}
		}()
	}
	for i := 0; i < senders; i++ {
		s := c()
		ref := s.join(busy, config(false, false, "", false, false))
		frame := []byte(fmt.Sprintf(`[%q,"1",%q,"broadcast",{"type":"broadcast","event":"noise","payload":{}}]`, ref, busy))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s.conn.Write(ctx, websocket.MessageText, frame) == nil {
			}
		}()
	}
}

// TestBroadcastAfterJoinReply: a client that has seen its join's ok
// reply gets every broadcast sent after it, whether another client sends
// it on seeing the reply or the client itself (self). Repeated, with the
// hub's lock contended: a node that queued the join's reply before the
// channel was in its topic lost one within a few hundred rounds.
func TestBroadcastAfterJoinReply(t *testing.T) {
	s := pgresttest.StartWith(t, directives("realtime_max_channels 2000"), pgresttest.Options{})
	busyHub(t, func() *client { return dial(t, s, "", "2.0.0") }, 60, 4)
	a := dial(t, s, "", "2.0.0")
	b := dial(t, s, "", "2.0.0")
	const rounds = 1000
	for i := 0; i < rounds; i++ {
		topic := fmt.Sprintf("realtime:order-%d", i)
		bRef := b.join(topic, config(false, false, "", false, false))
		self := i%2 == 1
		aRef := a.join(topic, config(self, false, "", false, false))
		payload := map[string]any{"type": "broadcast", "event": "after-reply", "payload": map[string]any{"round": i}}
		if self {
			a.send(aRef, topic, "broadcast", payload)
		} else {
			b.send(bRef, topic, "broadcast", payload)
		}
		for {
			m, err := a.tryRead(wait)
			if err != nil {
				t.Fatalf("round %d (self %v): no broadcast after the join's reply: %v", i, self, err)
			}
			if m.Topic == topic && m.Event == "broadcast" {
				if p, _ := m.Payload["payload"].(map[string]any); p["round"] != float64(i) {
					t.Fatalf("round %d: got %v", i, m.Payload)
				}
				break
			}
		}
	}
}
