package realtimesocket

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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

// nextOnTopic reads the next n messages of topic, skipping others.
func nextOnTopic(c *client, topic string, n int) []msg {
	c.t.Helper()
	var out []msg
	for len(out) < n {
		if m := c.read(); m.Topic == topic {
			out = append(out, m)
		}
	}
	return out
}

// eventsOf names the messages' events, a reply as phx_reply:<ref>.
func eventsOf(ms []msg) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Event
		if m.Event == "phx_reply" {
			out[i] += fmt.Sprintf(":%v", m.Ref)
		}
	}
	return out
}

// TestPresenceStateAfterReply pins the order Supabase Realtime sends in
// (realtime_channel.ex): a join with presence enabled is answered first,
// then presence_state (join/3 sends itself :sync_presence, handled after
// Phoenix has pushed the reply); a track is answered before the presence
// it causes (handle_in returns {:reply, :ok}, the tracker's diff comes
// after), and when the track enables presence pgrest's presence_state
// comes between the two.
func TestPresenceStateAfterReply(t *testing.T) {
	s := pgresttest.StartWith(t, directives(), pgresttest.Options{})
	for _, vsn := range serializers {
		t.Run("vsn "+vsn, func(t *testing.T) {
			topic := "realtime:order-presence-" + vsn
			c := dial(t, s, "", vsn)
			ref := c.nextRef()
			payload := map[string]any{"config": config(false, false, "pinned", true, false)}
			if vsn == "1.0.0" {
				c.write(websocket.MessageText, mustJSON(t, map[string]any{"join_ref": ref, "ref": ref, "topic": topic, "event": "phx_join", "payload": payload}))
			} else {
				c.write(websocket.MessageText, mustJSON(t, []any{ref, ref, topic, "phx_join", payload}))
			}
			got := eventsOf(nextOnTopic(c, topic, 2))
			if want := []string{"phx_reply:" + ref, "presence_state"}; !slices.Equal(got, want) {
				t.Errorf("join: %v, want %v", got, want)
			}

			other := "realtime:order-track-" + vsn
			joinRef := c.join(other, config(false, false, "tracker", false, false))
			track := c.send(joinRef, other, "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"n": 1}})
			got = eventsOf(nextOnTopic(c, other, 3))
			if want := []string{"phx_reply:" + track, "presence_state", "presence_diff"}; !slices.Equal(got, want) {
				t.Errorf("track enabling presence: %v, want %v", got, want)
			}
			track = c.send(joinRef, other, "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"n": 2}})
			got = eventsOf(nextOnTopic(c, other, 2))
			if want := []string{"phx_reply:" + track, "presence_diff"}; !slices.Equal(got, want) {
				t.Errorf("track: %v, want %v", got, want)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
