package realtimesocket

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// wait bounds every wait for a message: generous for a loaded machine,
// never a measure.
const wait = 20 * time.Second

// client is a realtime socket as realtime-js opens it.
type client struct {
	t    *testing.T
	conn *websocket.Conn
	vsn  string
	ref  atomic.Int64
}

// msg is a received message.
type msg struct {
	JoinRef, Ref any
	Topic, Event string
	Payload      map[string]any
	// Binary is a binary frame as received.
	Binary []byte
}

// wsURL is the socket's URL on a server, with the query.
func wsURL(s *pgresttest.Server, query string) string {
	return "ws" + strings.TrimPrefix(s.URL, "http") + "/realtime/v1/websocket?" + query
}

// dial opens a socket with apikey (none when "") and serializer vsn.
func dial(t *testing.T, s *pgresttest.Server, apikey, vsn string) *client {
	t.Helper()
	q := "vsn=" + vsn
	if apikey != "" {
		q += "&apikey=" + apikey
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, wsURL(s, q), nil)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	conn.SetReadLimit(64 << 20)
	c := &client{t: t, conn: conn, vsn: vsn}
	t.Cleanup(func() { _ = conn.CloseNow() })
	return c
}

// dialRefused opens a socket that must be refused: the status and the
// JSON body's "error".
func dialRefused(t *testing.T, s *pgresttest.Server, query string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, wsURL(s, query), nil)
	if err == nil {
		_ = conn.CloseNow()
		t.Fatalf("dial with %s: connected, want a refusal", query)
	}
	if resp == nil {
		t.Fatalf("dial with %s: %v, no response", query, err)
	}
	var body struct {
		Error string `json:"error"`
	}
	if resp.Body != nil {
		_ = json.NewDecoder(resp.Body).Decode(&body)
	}
	return resp.StatusCode, body.Error
}

// nextRef is the next ref, as realtime-js numbers them.
func (c *client) nextRef() string { return strconv.FormatInt(c.ref.Add(1), 10) }

// send sends a message with the client's serializer; it returns the ref.
func (c *client) send(joinRef, topic, event string, payload any) string {
	c.t.Helper()
	ref := c.nextRef()
	var jr any
	if joinRef != "" {
		jr = joinRef
	}
	var data []byte
	var err error
	if c.vsn == "1.0.0" {
		data, err = json.Marshal(map[string]any{"join_ref": jr, "ref": ref, "topic": topic, "event": event, "payload": payload})
	} else {
		data, err = json.Marshal([]any{jr, ref, topic, event, payload})
	}
	if err != nil {
		c.t.Fatal(err)
	}
	c.write(websocket.MessageText, data)
	return ref
}

func (c *client) write(typ websocket.MessageType, data []byte) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.conn.Write(ctx, typ, data); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// read reads the next message.
func (c *client) read() msg {
	c.t.Helper()
	m, err := c.tryRead(wait)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return m
}

func (c *client) tryRead(d time.Duration) (msg, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	typ, data, err := c.conn.Read(ctx)
	if err != nil {
		return msg{}, err
	}
	if typ == websocket.MessageBinary {
		return msg{Binary: data, Event: "binary"}, nil
	}
	var m msg
	if c.vsn == "1.0.0" {
		var o struct {
			JoinRef any            `json:"join_ref"`
			Ref     any            `json:"ref"`
			Topic   string         `json:"topic"`
			Event   string         `json:"event"`
			Payload map[string]any `json:"payload"`
		}
		if err := json.Unmarshal(data, &o); err != nil {
			c.t.Fatalf("vsn 1.0.0 frame %s: %v", data, err)
		}
		m = msg{JoinRef: o.JoinRef, Ref: o.Ref, Topic: o.Topic, Event: o.Event, Payload: o.Payload}
	} else {
		var a []json.RawMessage
		if err := json.Unmarshal(data, &a); err != nil || len(a) != 5 {
			c.t.Fatalf("vsn 2.0.0 frame %s: %v", data, err)
		}
		_ = json.Unmarshal(a[0], &m.JoinRef)
		_ = json.Unmarshal(a[1], &m.Ref)
		_ = json.Unmarshal(a[2], &m.Topic)
		_ = json.Unmarshal(a[3], &m.Event)
		_ = json.Unmarshal(a[4], &m.Payload)
	}
	return m, nil
}

// expect reads until a message of event on topic, skipping others
// (heartbeat replies, presence messages a test does not look at).
func (c *client) expect(topic, event string) msg {
	c.t.Helper()
	for {
		m := c.read()
		if m.Topic == topic && m.Event == event {
			return m
		}
	}
}

// expectReply reads until the reply to ref and returns its status and
// response.
func (c *client) expectReply(ref string) (string, map[string]any) {
	c.t.Helper()
	for {
		m := c.read()
		if m.Event == "phx_reply" && m.Ref == ref {
			resp, _ := m.Payload["response"].(map[string]any)
			return m.Payload["status"].(string), resp
		}
	}
}

// track tracks meta as the client's presence on topic (joined with
// joinRef); the reply must be ok.
func (c *client) track(joinRef, topic string, meta map[string]any) {
	c.t.Helper()
	ref := c.send(joinRef, topic, "presence", map[string]any{"type": "presence", "event": "track", "payload": meta})
	if status, resp := c.expectReply(ref); status != "ok" {
		c.t.Fatalf("track on %s: %s %v", topic, status, resp)
	}
}

// join joins topic with config (and the extra payload fields) and
// returns the join ref; the reply must be ok.
func (c *client) join(topic string, config map[string]any, extra ...any) string {
	c.t.Helper()
	status, resp, ref := c.tryJoin(topic, config, extra...)
	if status != "ok" {
		c.t.Fatalf("join %s: %s %v", topic, status, resp)
	}
	return ref
}

// tryJoin joins and returns the reply.
func (c *client) tryJoin(topic string, config map[string]any, extra ...any) (string, map[string]any, string) {
	c.t.Helper()
	payload := map[string]any{"config": config}
	for i := 0; i+1 < len(extra); i += 2 {
		payload[extra[i].(string)] = extra[i+1]
	}
	ref := c.nextRef()
	var data []byte
	if c.vsn == "1.0.0" {
		data, _ = json.Marshal(map[string]any{"join_ref": ref, "ref": ref, "topic": topic, "event": "phx_join", "payload": payload})
	} else {
		data, _ = json.Marshal([]any{ref, ref, topic, "phx_join", payload})
	}
	c.write(websocket.MessageText, data)
	status, resp := c.expectReply(ref)
	return status, resp, ref
}

// config is a join's config as realtime-js sends it.
func config(self, ack bool, presenceKey string, presence, private bool) map[string]any {
	return map[string]any{
		"broadcast":        map[string]any{"self": self, "ack": ack},
		"presence":         map[string]any{"key": presenceKey, "enabled": presence},
		"postgres_changes": []any{},
		"private":          private,
	}
}

// token signs claims with the servers' secret.
func token(t *testing.T, claims jwt.MapClaims) string {
	return pgresttest.Token(t, secret, claims)
}

// userToken is a token of webuser for sub, valid for an hour.
func userToken(t *testing.T, sub string) string {
	return token(t, jwt.MapClaims{"role": "webuser", "sub": sub, "exp": time.Now().Add(time.Hour).Unix()})
}

var _ = http.StatusOK
