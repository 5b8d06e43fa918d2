package realtime

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"

	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// busChannel is the NOTIFY channel between nodes; realtime.sql's
// node_publish and send() notify it too.
const busChannel = "pgrest_realtime"

// notifyLimit is what fits in one notification: PostgreSQL refuses a
// payload of 8000 bytes or more; a longer message goes through
// realtime.node_messages (realtime.sql's node_publish).
const notifyLimit = 7900

const (
	// aliveEvery is how often a node says it is alive, and nodeTimeout
	// how long after its last word a silent node's presences are
	// dropped (a node that stops cleanly says so at once).
	aliveEvery  = 10 * time.Second
	nodeTimeout = 35 * time.Second
	// publishQueue bounds the messages waiting to be published.
	publishQueue = 4096
)

var (
	sqlNotify        = sqltext.Const("select pg_notify($1, $2)")
	sqlNodePublish   = sqltext.Const("select realtime.node_publish($1)")
	sqlNodeMessage   = sqltext.Const("select realtime.node_message($1)")
	sqlListenChannel = sqltext.Fmt("listen %s", sqltext.Ident(busChannel))
)

// busMsg is a message between nodes; realtime.sql's send() writes the
// "b" kind with node "db".
type busMsg struct {
	// Kind: b broadcast, p presence diff, s a node's presences of a
	// topic, h hello (a node asks for everybody's presences), r reported
	// (a node has sent its presences to the node named in Topic), a
	// alive, x a node stopping.
	Kind    string                       `json:"k"`
	Node    string                       `json:"n"`
	Topic   string                       `json:"t,omitempty"`
	Private bool                         `json:"pv,omitempty"`
	Event   string                       `json:"e,omitempty"`
	Payload json.RawMessage              `json:"p,omitempty"`
	Binary  []byte                       `json:"bin,omitempty"`
	IsBin   bool                         `json:"ib,omitempty"`
	Meta    json.RawMessage              `json:"m,omitempty"`
	Joins   map[string][]json.RawMessage `json:"j,omitempty"`
	Leaves  map[string][]json.RawMessage `json:"l,omitempty"`
	State   map[string][]json.RawMessage `json:"s,omitempty"`
}

// bus carries broadcasts and presence between the nodes of one
// database through LISTEN/NOTIFY: PostgreSQL delivers a notification to
// every listening session, in commit order, so no engine beside the
// database is needed. A node ignores its own messages: its sockets have
// them already.
type bus struct {
	srv     *Server
	queue   chan busMsg
	wg      sync.WaitGroup
	mu      sync.Mutex
	seen    map[string]time.Time
	enabled bool
	peers   *peers
}

func newBus(srv *Server) *bus {
	b := &bus{srv: srv, queue: make(chan busMsg, publishQueue), seen: map[string]time.Time{},
		enabled: srv.cfg.ListenConfig != nil && srv.cfg.Pool != nil, peers: newPeers()}
	if !b.enabled {
		b.peers.markReady()
	}
	return b
}

func (b *bus) start() {
	if !b.enabled {
		return
	}
	b.wg.Add(2)
	go b.publishLoop()
	go b.listenLoop()
}

// stop says goodbye (the others drop this node's presences at once) and
// waits for the loops.
func (b *bus) stop() {
	if !b.enabled {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	b.send(ctx, busMsg{Kind: "x", Node: b.srv.cfg.Node})
	cancel()
	b.wg.Wait()
}

func (b *bus) publish(m busMsg) {
	if !b.enabled {
		return
	}
	m.Node = b.srv.cfg.Node
	select {
	case b.queue <- m:
	default:
		b.srv.log.Warn("realtime: messages to the other nodes are backing up; one is dropped", zap.String("kind", m.Kind))
	}
}

func (b *bus) publishBroadcast(ob *outBroadcast) {
	b.publish(busMsg{Kind: "b", Topic: ob.key.topic, Private: ob.key.private, Event: ob.event,
		Payload: ob.payload, Binary: ob.binary, IsBin: ob.isBinary, Meta: ob.meta})
}

func (b *bus) publishDiff(key hubKey, d diff) {
	if d.empty() {
		return
	}
	b.publish(busMsg{Kind: "p", Topic: key.topic, Private: key.private, Joins: raws(d.joins), Leaves: raws(d.leaves)})
}

func raws(in map[string][]meta) map[string][]json.RawMessage {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string][]json.RawMessage, len(in))
	for k, ms := range in {
		for _, m := range ms {
			out[k] = append(out[k], m.raw)
		}
	}
	return out
}

// publishLoop sends queued messages in order, and says alive.
func (b *bus) publishLoop() {
	defer b.wg.Done()
	tick := time.NewTicker(aliveEvery)
	defer tick.Stop()
	for {
		select {
		case <-b.srv.ctx.Done():
			return
		case m := <-b.queue:
			b.send(b.srv.ctx, m)
		case <-tick.C:
			b.send(b.srv.ctx, busMsg{Kind: "a", Node: b.srv.cfg.Node})
			b.sweep()
		}
	}
}

// send notifies, through realtime.node_publish when the message is too
// long for a notification.
func (b *bus) send(ctx context.Context, m busMsg) {
	body, err := json.Marshal(m)
	if err != nil {
		return
	}
	if len(body) < notifyLimit {
		_, err = b.srv.cfg.Pool.Exec(ctx, sqlNotify.String(), busChannel, string(body))
	} else {
		_, err = b.srv.cfg.Pool.Exec(ctx, sqlNodePublish.String(), string(body))
	}
	if err != nil && ctx.Err() == nil {
		b.srv.log.Warn("realtime: publishing to the other nodes failed (is realtime.sql installed, "+
			"and realtime.node_publish granted to the authenticator?)", zap.Int("bytes", len(body)), zap.Error(err))
	}
}

// listenLoop listens with a connection of its own, reconnecting with
// backoff; on each connect it says hello, so that the other nodes send
// their presences again (those sent while it was away are lost).
func (b *bus) listenLoop() {
	defer b.wg.Done()
	retry := 100 * time.Millisecond
	for b.srv.ctx.Err() == nil {
		err := b.listenOnce(func() { retry = 100 * time.Millisecond })
		if b.srv.ctx.Err() != nil {
			return
		}
		b.srv.log.Warn("realtime listener disconnected", zap.Error(err), zap.Duration("retry_in", retry))
		select {
		case <-b.srv.ctx.Done():
			return
		case <-time.After(retry):
		}
		retry = min(retry*2, 10*time.Second)
	}
}

func (b *bus) listenOnce(connected func()) error {
	ctx := b.srv.ctx
	cfg := b.srv.cfg.ListenConfig.Copy()
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["application_name"] = listenerName(b.srv.cfg.Node)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, sqlListenChannel.String()); err != nil {
		return err
	}
	connected()
	b.peers.expect(ctx, conn, b.srv.cfg.Node)
	b.publish(busMsg{Kind: "h"})
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		b.receive(ctx, n.Payload)
	}
}

// receive handles one notification.
func (b *bus) receive(ctx context.Context, payload string) {
	if id, ok := strings.CutPrefix(payload, "#"); ok {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return
		}
		var body *string
		if err := b.srv.cfg.Pool.QueryRow(ctx, sqlNodeMessage.String(), n).Scan(&body); err != nil || body == nil {
			b.srv.log.Warn("realtime: reading a long message from the other nodes failed", zap.Int64("id", n), zap.Error(err))
			return
		}
		payload = *body
	}
	var m busMsg
	if err := json.Unmarshal([]byte(payload), &m); err != nil {
		return
	}
	if m.Node == b.srv.cfg.Node {
		return
	}
	if m.Node != "db" {
		b.mu.Lock()
		b.seen[m.Node] = time.Now()
		b.mu.Unlock()
	}
	key := hubKey{topic: m.Topic, private: m.Private}
	h := b.srv.hub
	switch m.Kind {
	case "b":
		if !m.IsBin && len(m.Payload) == 0 {
			m.Payload = emptyObject
		}
		h.broadcast(&outBroadcast{key: key, event: m.Event, payload: m.Payload, meta: m.Meta,
			binary: m.Binary, isBinary: m.IsBin}, nil)
	case "p":
		h.applyRemote(m.Node, key, m.Joins, m.Leaves)
	case "s":
		h.replaceRemote(m.Node, key, m.State)
	case "h":
		for k, st := range h.localStates() {
			b.publish(busMsg{Kind: "s", Topic: k.topic, Private: k.private, State: raws(st)})
		}
		b.publish(busMsg{Kind: "r", Topic: m.Node})
	case "r":
		if m.Topic == b.srv.cfg.Node {
			b.peers.reportedBy(m.Node)
		}
	case "x":
		b.forget(m.Node)
	}
}

// sweep drops the presences of nodes silent for nodeTimeout.
func (b *bus) sweep() {
	b.mu.Lock()
	var gone []string
	for node, at := range b.seen {
		if time.Since(at) > nodeTimeout {
			gone = append(gone, node)
		}
	}
	b.mu.Unlock()
	for _, node := range gone {
		b.forget(node)
	}
}

func (b *bus) forget(node string) {
	b.mu.Lock()
	delete(b.seen, node)
	b.mu.Unlock()
	b.srv.hub.dropNode(node)
}
