package realtimesocket

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

var serializers = []string{"1.0.0", "2.0.0"}

// TestProtocol runs the protocol's exchanges with both serializers.
func TestProtocol(t *testing.T) {
	s := pgresttest.StartWith(t, directives("realtime_max_message_size 2048", "realtime_max_channels 3"), pgresttest.Options{})
	for _, vsn := range serializers {
		t.Run("vsn "+vsn, func(t *testing.T) {
			t.Run("heartbeat is answered ok with an empty response", func(t *testing.T) {
				c := dial(t, s, "", vsn)
				ref := c.send("", "phoenix", "heartbeat", map[string]any{})
				m := c.read()
				if m.Topic != "phoenix" || m.Event != "phx_reply" || m.Ref != ref || m.Payload["status"] != "ok" {
					t.Fatalf("got %+v", m)
				}
				if resp, _ := m.Payload["response"].(map[string]any); len(resp) != 0 {
					t.Errorf("response %v, want {}", resp)
				}
			})
			t.Run("a join is answered with its postgres_changes, a leave with ok and phx_close", func(t *testing.T) {
				c := dial(t, s, "", vsn)
				joinRef := c.join("realtime:room-protocol", config(false, false, "", false, false))
				leaveRef := c.send(joinRef, "realtime:room-protocol", "phx_leave", map[string]any{})
				status, _ := c.expectReply(leaveRef)
				if status != "ok" {
					t.Fatalf("leave: %s", status)
				}
				m := c.expect("realtime:room-protocol", "phx_close")
				if m.JoinRef != joinRef || m.Ref != joinRef {
					t.Errorf("phx_close refs %v %v, want the join ref %s", m.JoinRef, m.Ref, joinRef)
				}
				// Left: a message to the topic is now unmatched.
				ref := c.send(joinRef, "realtime:room-protocol", "broadcast", map[string]any{"type": "broadcast", "event": "x"})
				status, resp := c.expectReply(ref)
				if status != "error" || resp["reason"] != "unmatched topic" {
					t.Errorf("after leave: %s %v", status, resp)
				}
			})
			t.Run("the join reply lists no postgres_changes when none are asked", func(t *testing.T) {
				c := dial(t, s, "", vsn)
				status, resp, _ := c.tryJoin("realtime:room-empty", config(false, false, "", false, false))
				list, ok := resp["postgres_changes"].([]any)
				if status != "ok" || !ok || len(list) != 0 {
					t.Fatalf("got %s %v", status, resp)
				}
			})
			t.Run("error replies, and the socket goes on", func(t *testing.T) {
				c := dial(t, s, "", vsn)
				other := dial(t, s, "", vsn)
				otherRef := other.join("realtime:room-errors", config(false, false, "", false, false))
				joinRef := c.join("realtime:room-errors", config(false, false, "", false, false))

				// Malformed frames.
				for _, bad := range []string{`{"topic":`, `[1,2,3]`, `"just a string"`} {
					c.write(websocket.MessageText, []byte(bad))
					m := c.read()
					reason, _ := m.Payload["response"].(map[string]any)["reason"].(string)
					if m.Topic != "phoenix" || m.Payload["status"] != "error" || !strings.HasPrefix(reason, "MalformedWebSocketMessage: ") {
						t.Errorf("%s: got %+v", bad, m)
					}
				}
				// A topic the socket has not joined.
				ref := c.send("99", "realtime:not-joined", "broadcast", map[string]any{"type": "broadcast", "event": "x"})
				if status, resp := c.expectReply(ref); status != "error" || resp["reason"] != "unmatched topic" {
					t.Errorf("unjoined topic: %s %v", status, resp)
				}
				// A topic outside realtime:*.
				if status, resp, _ := c.tryJoin("room-no-prefix", config(false, false, "", false, false)); status != "error" || resp["reason"] != "unmatched topic" {
					t.Errorf("topic without realtime: prefix: %s %v", status, resp)
				}
				// A topic without a name (realtime_channel.ex).
				if status, resp, _ := c.tryJoin("realtime:", config(false, false, "", false, false)); status != "error" ||
					resp["reason"] != "TopicNameRequired: You must provide a topic name" {
					t.Errorf("empty topic: %s %v", status, resp)
				}
				// postgres_changes on a server without realtime_publication.
				cfg := config(false, false, "", false, false)
				cfg["postgres_changes"] = []any{map[string]any{"event": "*", "schema": "api", "table": "clients"}}
				status, resp, _ := c.tryJoin("realtime:room-changes", cfg)
				if reason, _ := resp["reason"].(string); status != "error" || !strings.HasPrefix(reason, "RealtimeDisabledForConfiguration: ") {
					t.Errorf("postgres_changes without a feed: %s %v", status, resp)
				}
				// An oversized message (realtime_max_message_size 2048).
				ref = c.send(joinRef, "realtime:room-errors", "broadcast",
					map[string]any{"type": "broadcast", "event": "big", "payload": map[string]any{"x": strings.Repeat("x", 4000)}})
				if status, resp := c.expectReply(ref); status != "error" || resp["reason"] != "payload_size_exceeded" {
					t.Errorf("oversized: %s %v", status, resp)
				}
				// Too many channels (realtime_max_channels 3): two more fit.
				c.join("realtime:room-a", config(false, false, "", false, false))
				c.join("realtime:room-b", config(false, false, "", false, false))
				if status, resp, _ := c.tryJoin("realtime:room-c", config(false, false, "", false, false)); status != "error" ||
					resp["reason"] != "ChannelRateLimitReached: Too many channels" {
					t.Errorf("fourth channel: %s %v", status, resp)
				}

				// Both sockets still work: a broadcast from c reaches other.
				c.send(joinRef, "realtime:room-errors", "broadcast",
					map[string]any{"type": "broadcast", "event": "still-here", "payload": map[string]any{"n": 1}})
				m := other.expect("realtime:room-errors", "broadcast")
				if m.Payload["event"] != "still-here" {
					t.Errorf("got %+v", m)
				}
				_ = otherRef
			})
			t.Run("joining a topic again closes the first join", func(t *testing.T) {
				c := dial(t, s, "", vsn)
				first := c.join("realtime:room-again", config(false, false, "", false, false))
				c.send("", "realtime:room-again", "phx_join", map[string]any{"config": config(false, false, "", false, false)})
				m := c.read()
				if m.Event != "phx_close" || m.JoinRef != first {
					t.Errorf("got %+v, want the first join's phx_close", m)
				}
				if m := c.read(); m.Event != "phx_reply" || m.Payload["status"] != "ok" {
					t.Errorf("got %+v, want the second join's reply", m)
				}
			})
		})
	}
}

// TestBroadcast sends between clients of both serializers, with self
// and ack, and from SQL.
func TestBroadcast(t *testing.T) {
	s := pgresttest.StartWith(t, directives(), pgresttest.Options{})
	a := dial(t, s, "", "2.0.0")
	b := dial(t, s, "", "1.0.0")
	const topic = "realtime:room-broadcast"
	aRef := a.join(topic, config(true, true, "", false, false))
	b.join(topic, config(false, false, "", false, false))

	ref := a.send(aRef, topic, "broadcast", map[string]any{"type": "broadcast", "event": "cursor", "payload": map[string]any{"x": 1}})
	// ack: the push is answered; self: a gets its own message.
	var gotAck, gotSelf bool
	for !gotAck || !gotSelf {
		m := a.read()
		switch {
		case m.Event == "phx_reply" && m.Ref == ref:
			gotAck = m.Payload["status"] == "ok"
			if !gotAck {
				t.Fatalf("ack: %+v", m)
			}
		case m.Event == "broadcast":
			gotSelf = true
		}
	}
	m := b.expect(topic, "broadcast")
	want := map[string]any{"type": "broadcast", "event": "cursor", "payload": map[string]any{"x": float64(1)}}
	if !equalJSON(m.Payload, want) {
		t.Errorf("b got %v, want %v", m.Payload, want)
	}

	t.Run("without self the sender gets nothing back", func(t *testing.T) {
		bRef := b.join("realtime:room-noself", config(false, false, "", false, false))
		a.join("realtime:room-noself", config(false, false, "", false, false))
		b.send(bRef, "realtime:room-noself", "broadcast", map[string]any{"type": "broadcast", "event": "one", "payload": map[string]any{}})
		a.expect("realtime:room-noself", "broadcast")
		// b heartbeats: the reply is the next message it gets, not its own broadcast.
		hb := b.send("", "phoenix", "heartbeat", map[string]any{})
		if m := b.read(); m.Event != "phx_reply" || m.Ref != hb {
			t.Errorf("b got %+v before its heartbeat reply", m)
		}
	})

	t.Run("binary frames", func(t *testing.T) {
		c := dial(t, s, "", "2.0.0")
		d := dial(t, s, "", "2.0.0")
		cRef := c.join("realtime:room-binary", config(false, false, "", false, false))
		d.join("realtime:room-binary", config(false, false, "", false, false))
		// A JSON-encoded user broadcast push, as realtime-js sends
		// channel.send({type:'broadcast', event, payload}).
		c.write(websocket.MessageBinary, userBroadcastPush(cRef, "5", "realtime:room-binary", "ev-json", 1, []byte(`{"a":1}`)))
		m := d.expect("realtime:room-binary", "broadcast")
		if !equalJSON(m.Payload, map[string]any{"type": "broadcast", "event": "ev-json", "payload": map[string]any{"a": float64(1)}}) {
			t.Errorf("got %v", m.Payload)
		}
		// A binary payload comes as a userBroadcast frame.
		c.write(websocket.MessageBinary, userBroadcastPush(cRef, "6", "realtime:room-binary", "ev-bin", 0, []byte{1, 2, 3}))
		m = d.expect("", "binary")
		topic := "realtime:room-binary"
		wantFrame := append([]byte{4, byte(len(topic)), 6, 0, 0}, []byte(topic+"ev-bin")...)
		wantFrame = append(wantFrame, 1, 2, 3)
		if string(m.Binary) != string(wantFrame) {
			t.Errorf("binary frame %v, want %v", m.Binary, wantFrame)
		}
		// A truncated binary frame is malformed.
		c.write(websocket.MessageBinary, []byte{3, 10, 10})
		m = c.expect("phoenix", "phx_reply")
		if m.Payload["status"] != "error" {
			t.Errorf("truncated frame: %+v", m)
		}
	})

	t.Run("realtime.send from SQL reaches the public channel", func(t *testing.T) {
		pgresttest.SQLJSON(t, db.SuperDSN, `select realtime.send('{"from":"sql"}', 'db-event', 'room-broadcast', false)`)
		m := b.expect(topic, "broadcast")
		p := m.Payload
		inner, _ := p["payload"].(map[string]any)
		meta, _ := p["meta"].(map[string]any)
		if p["event"] != "db-event" || inner["from"] != "sql" || inner["id"] == nil || meta["id"] != inner["id"] {
			t.Errorf("got %v", p)
		}
	})
}

// userBroadcastPush is realtime-js's serializer.ts _encodeUserBroadcastPush.
func userBroadcastPush(joinRef, ref, topic, event string, encoding byte, payload []byte) []byte {
	out := []byte{3, byte(len(joinRef)), byte(len(ref)), byte(len(topic)), byte(len(event)), 0, encoding}
	out = append(out, joinRef+ref+topic+event...)
	return append(out, payload...)
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestPresence tracks, lists and untracks.
func TestPresence(t *testing.T) {
	s := pgresttest.StartWith(t, directives(), pgresttest.Options{})
	const topic = "realtime:room-presence"
	a := dial(t, s, "", "2.0.0")
	aRef := a.join(topic, config(false, false, "alice", true, false))
	a.expect(topic, "presence_state")
	a.track(aRef, topic, map[string]any{"status": "online"})
	d := a.expect(topic, "presence_diff")
	metas := metasOf(t, d.Payload["joins"], "alice")
	if len(metas) != 1 || metas[0]["status"] != "online" || metas[0]["phx_ref"] == nil {
		t.Fatalf("joins %v", d.Payload)
	}

	b := dial(t, s, "", "1.0.0")
	b.join(topic, config(false, false, "bob", true, false))
	st := b.expect(topic, "presence_state")
	if metas := metasOf(t, st.Payload, "alice"); len(metas) != 1 || metas[0]["status"] != "online" {
		t.Fatalf("presence_state %v", st.Payload)
	}

	ref := a.send(aRef, topic, "presence", map[string]any{"type": "presence", "event": "untrack"})
	if status, _ := a.expectReply(ref); status != "ok" {
		t.Fatalf("untrack: %s", status)
	}
	d = b.expect(topic, "presence_diff")
	if metas := metasOf(t, d.Payload["leaves"], "alice"); len(metas) != 1 {
		t.Fatalf("leaves %v", d.Payload)
	}

	t.Run("a socket that closes leaves", func(t *testing.T) {
		c := dial(t, s, "", "2.0.0")
		cRef := c.join(topic, config(false, false, "carol", true, false))
		c.send(cRef, topic, "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{}})
		for {
			d := b.expect(topic, "presence_diff")
			if len(metasOf(t, d.Payload["joins"], "carol")) == 1 {
				break
			}
		}
		_ = c.conn.Close(websocket.StatusNormalClosure, "")
		for {
			d := b.expect(topic, "presence_diff")
			if len(metasOf(t, d.Payload["leaves"], "carol")) == 1 {
				break
			}
		}
	})
}

// metasOf is the metas of key in a presence map {key: {"metas": [...]}}.
func metasOf(t *testing.T, v any, key string) []map[string]any {
	t.Helper()
	m, _ := v.(map[string]any)
	entry, _ := m[key].(map[string]any)
	list, _ := entry["metas"].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, x := range list {
		o, _ := x.(map[string]any)
		out = append(out, o)
	}
	return out
}

// TestTokens authenticates sockets and channels as REST does.
func TestTokens(t *testing.T) {
	s := pgresttest.StartWith(t, directives(), pgresttest.Options{})

	t.Run("a malformed apikey is refused at the upgrade", func(t *testing.T) {
		status, msg := dialRefused(t, s, "vsn=2.0.0&apikey=a.b.c")
		if status != 401 || msg != "The token provided is not a valid JWT" {
			t.Errorf("got %d %q", status, msg)
		}
	})
	t.Run("an expired apikey is refused at the upgrade", func(t *testing.T) {
		expired := token(t, jwt.MapClaims{"role": "webuser", "exp": time.Now().Add(-time.Hour).Unix()})
		status, msg := dialRefused(t, s, "vsn=2.0.0&apikey="+expired)
		if status != 401 || msg != "Token has expired" {
			t.Errorf("got %d %q", status, msg)
		}
	})
	t.Run("a token of another secret is refused", func(t *testing.T) {
		other := pgresttest.Token(t, "another-secret-that-is-long-enough-0123456789", jwt.MapClaims{"role": "webuser"})
		status, msg := dialRefused(t, s, "vsn=2.0.0&apikey="+other)
		if status != 401 || msg != "Failed to validate JWT signature" {
			t.Errorf("got %d %q", status, msg)
		}
	})
	t.Run("a join with an expired access_token is refused with Supabase's text", func(t *testing.T) {
		c := dial(t, s, "", "2.0.0")
		expired := token(t, jwt.MapClaims{"role": "webuser", "exp": time.Now().Add(-time.Hour).Unix()})
		status, resp, _ := c.tryJoin("realtime:room-tokens", config(false, false, "", false, false), "access_token", expired)
		reason, _ := resp["reason"].(string)
		if status != "error" || !strings.HasPrefix(reason, "InvalidJWTToken: Token has expired ") || !strings.HasSuffix(reason, " seconds ago") {
			t.Errorf("got %s %v", status, resp)
		}
	})
	t.Run("an expiring token closes the channel; a refreshed one keeps it", func(t *testing.T) {
		soon := time.Now().Add(3 * time.Second)
		short := token(t, jwt.MapClaims{"role": "webuser", "sub": "u1", "exp": soon.Unix()})
		c := dial(t, s, "", "2.0.0")
		ref1 := c.join("realtime:room-expiry-1", config(false, false, "", false, false), "access_token", short)
		ref2 := c.join("realtime:room-expiry-2", config(false, false, "", false, false), "access_token", short)
		// Channel 2's token is refreshed before it expires.
		c.send(ref2, "realtime:room-expiry-2", "access_token", map[string]any{"access_token": userToken(t, "u1")})
		sys := c.expect("realtime:room-expiry-1", "system")
		want := map[string]any{"extension": "system", "status": "error", "channel": "room-expiry-1"}
		for k, v := range want {
			if sys.Payload[k] != v {
				t.Errorf("system %s = %v, want %v", k, sys.Payload[k], v)
			}
		}
		if msg, _ := sys.Payload["message"].(string); !strings.HasPrefix(msg, "Token has expired ") {
			t.Errorf("system message %q", msg)
		}
		cl := c.expect("realtime:room-expiry-1", "phx_close")
		if cl.JoinRef != ref1 {
			t.Errorf("phx_close of %v, want %s", cl.JoinRef, ref1)
		}
		// Channel 2 still works: a heartbeat, then a broadcast with self.
		time.Sleep(time.Until(soon) + time.Second)
		hb := c.send("", "phoenix", "heartbeat", map[string]any{})
		for {
			m := c.read()
			if m.Topic == "realtime:room-expiry-2" && (m.Event == "phx_close" || m.Event == "system") {
				t.Fatalf("refreshed channel closed: %+v", m)
			}
			if m.Ref == hb {
				break
			}
		}
		// And it is still joined: its leave is answered ok.
		leave := c.send(ref2, "realtime:room-expiry-2", "phx_leave", map[string]any{})
		if status, _ := c.expectReply(leave); status != "ok" {
			t.Errorf("leave of the refreshed channel: %s", status)
		}
	})
	t.Run("a refresh with a refused token closes the channel", func(t *testing.T) {
		c := dial(t, s, "", "1.0.0")
		ref := c.join("realtime:room-refresh-bad", config(false, false, "", false, false), "access_token", userToken(t, "u1"))
		c.send(ref, "realtime:room-refresh-bad", "access_token", map[string]any{"access_token": "a.b.c"})
		sys := c.expect("realtime:room-refresh-bad", "system")
		if sys.Payload["message"] != "The token provided is not a valid JWT" {
			t.Errorf("got %v", sys.Payload)
		}
		c.expect("realtime:room-refresh-bad", "phx_close")
	})
}

// TestPrivateChannels authorizes with the policies on realtime.messages
// (tests/fixtures/realtime_grants.sql).
func TestPrivateChannels(t *testing.T) {
	s := pgresttest.StartWith(t, directives(), pgresttest.Options{})
	t.Run("the anonymous role may not read", func(t *testing.T) {
		c := dial(t, s, "", "2.0.0")
		status, resp, _ := c.tryJoin("realtime:room-u1", config(false, false, "", false, true))
		if status != "error" || resp["reason"] != "Unauthorized: You do not have permissions to read from this Channel topic: room-u1" {
			t.Errorf("got %s %v", status, resp)
		}
	})
	t.Run("a user reads and writes its own room, not another's", func(t *testing.T) {
		u1 := dial(t, s, userToken(t, "u1"), "2.0.0")
		u1b := dial(t, s, "", "1.0.0")
		ref := u1.join("realtime:room-u1", config(false, true, "", false, true))
		u1b.join("realtime:room-u1", config(false, false, "", false, true), "access_token", userToken(t, "u1"))
		if status, resp, _ := u1.tryJoin("realtime:room-u2", config(false, false, "", false, true)); status != "error" {
			t.Errorf("u1 joined room-u2: %v", resp)
		}
		ack := u1.send(ref, "realtime:room-u1", "broadcast", map[string]any{"type": "broadcast", "event": "secret", "payload": map[string]any{"v": 1}})
		if status, _ := u1.expectReply(ack); status != "ok" {
			t.Errorf("ack %s", status)
		}
		if m := u1b.expect("realtime:room-u1", "broadcast"); m.Payload["event"] != "secret" {
			t.Errorf("got %v", m.Payload)
		}
		// A public channel of the same name is another topic.
		pub := dial(t, s, "", "2.0.0")
		pub.join("realtime:room-u1", config(false, false, "", false, false))
		pgresttest.SQLJSON(t, db.SuperDSN, `select realtime.send('{"p":true}', 'private-only', 'room-u1', true)`)
		if m := u1b.expect("realtime:room-u1", "broadcast"); m.Payload["event"] != "private-only" {
			t.Errorf("got %v", m.Payload)
		}
		hb := pub.send("", "phoenix", "heartbeat", map[string]any{})
		if m := pub.read(); m.Ref != hb {
			t.Errorf("the public channel got %+v", m)
		}
	})
	t.Run("a user that may read but not write sends nothing", func(t *testing.T) {
		u1 := dial(t, s, userToken(t, "u1"), "2.0.0")
		u2 := dial(t, s, userToken(t, "u2"), "2.0.0")
		ref := u1.join("realtime:shared-1", config(false, false, "", false, true))
		u2.join("realtime:shared-1", config(false, false, "", false, true))
		u1.send(ref, "realtime:shared-1", "broadcast", map[string]any{"type": "broadcast", "event": "dropped"})
		hb := u2.send("", "phoenix", "heartbeat", map[string]any{})
		// u1's heartbeat goes after its broadcast: once answered, the
		// broadcast was handled (and dropped).
		hb1 := u1.send("", "phoenix", "heartbeat", map[string]any{})
		u1.expectReply(hb1)
		if m := u2.read(); m.Ref != hb {
			t.Errorf("u2 got %+v", m)
		}
	})
}

// TestSlowConsumer disconnects a socket that does not read, and only it.
func TestSlowConsumer(t *testing.T) {
	s := pgresttest.StartWith(t, directives("realtime_queue_size 8"), pgresttest.Options{})
	const topic = "realtime:room-slow"
	sender := dial(t, s, "", "2.0.0")
	slow := dial(t, s, "", "2.0.0")
	ref := sender.join(topic, config(false, false, "", false, false))
	slow.join(topic, config(false, false, "", false, false))
	big := strings.Repeat("y", 500_000)
	// slow reads nothing: once the kernel's buffers are full its queue
	// fills and the server closes it.
	closed := false
	for i := 0; i < 400 && !closed; i++ {
		sender.send(ref, topic, "broadcast", map[string]any{"type": "broadcast", "event": "flood", "payload": map[string]any{"s": big}})
		if i%20 == 19 {
			hb := sender.send("", "phoenix", "heartbeat", map[string]any{})
			sender.expectReply(hb)
		}
	}
	for {
		// The close frame (1008) may not get through the full buffers:
		// the connection ends either way.
		_, err := slow.tryRead(wait)
		if err != nil {
			if st := websocket.CloseStatus(err); st != -1 && st != websocket.StatusPolicyViolation {
				t.Fatalf("slow socket ended with %v, want close 1008 or a cut connection", err)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("slow socket still open: %v", err)
			}
			break
		}
	}
	hb := sender.send("", "phoenix", "heartbeat", map[string]any{})
	if status, _ := sender.expectReply(hb); status != "ok" {
		t.Errorf("sender: %s", status)
	}
}
