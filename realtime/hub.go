package realtime

import (
	"encoding/json"
	"sync"
)

// hubKey is a topic as Supabase keeps them apart: a private channel and
// a public one of the same name are two topics (Tenants.tenant_topic).
type hubKey struct {
	topic   string
	private bool
}

// hub is this node's topics: their channels and presences.
type hub struct {
	srv    *Server
	mu     sync.Mutex
	topics map[hubKey]*topicState
}

type topicState struct {
	channels map[*channel]struct{}
	presence presenceState
}

func newHub(srv *Server) *hub {
	return &hub{srv: srv, topics: map[hubKey]*topicState{}}
}

// topic returns the state of key, made when missing. h.mu is held.
func (h *hub) topic(key hubKey) *topicState {
	t := h.topics[key]
	if t == nil {
		t = &topicState{channels: map[*channel]struct{}{}}
		h.topics[key] = t
	}
	return t
}

// dropIfEmpty forgets a topic nobody uses any more. h.mu is held.
func (h *hub) dropIfEmpty(key hubKey) {
	if t := h.topics[key]; t != nil && len(t.channels) == 0 && t.presence.empty() {
		delete(h.topics, key)
	}
}

// add puts c in its topic and queues reply, its join's answer, for its
// client under the same lock: a broadcast takes its snapshot of a topic's
// channels under that lock, so one sent after the client saw the reply
// reaches c, and none reaches c's client before the reply.
func (h *hub) add(c *channel, reply frame) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.topic(c.key).channels[c] = struct{}{}
	c.s.enqueue(reply)
}

// remove takes a channel out of its topic, untracking its presence.
func (h *hub) remove(c *channel) {
	h.untrack(c)
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.topics[c.key]; t != nil {
		delete(t.channels, c)
		h.dropIfEmpty(c.key)
	}
}

// channelsOf is a snapshot of a topic's channels. h.mu is held.
func (h *hub) channelsOf(key hubKey) []*channel {
	t := h.topics[key]
	if t == nil {
		return nil
	}
	out := make([]*channel, 0, len(t.channels))
	for c := range t.channels {
		out = append(out, c)
	}
	return out
}

// outBroadcast is one broadcast, encoded once per serializer.
type outBroadcast struct {
	key      hubKey
	event    string
	payload  json.RawMessage
	meta     json.RawMessage
	binary   []byte
	isBinary bool

	once [2]sync.Once
	out  [2][]byte
}

// frameFor is the broadcast as a socket of vsn receives it: a text
// message {"type":"broadcast","event","payload"[,"meta"]} (what the
// JSON serializers decode), or, for a binary payload, the userBroadcast
// frame, which vsn 1.0.0 cannot carry (Supabase skips those sockets
// too: realtime_channel.ex's replay/3).
func (b *outBroadcast) frameFor(vsn string) (frame, bool) {
	i := 0
	if vsn == vsn2 {
		i = 1
	}
	b.once[i].Do(func() {
		topic := "realtime:" + b.key.topic
		if b.isBinary {
			if vsn == vsn2 {
				b.out[i] = encodeUserBroadcast(topic, b.event, b.meta, b.binary)
			}
			return
		}
		payload := map[string]any{"type": "broadcast", "event": b.event, "payload": b.payload}
		if len(b.meta) > 0 {
			payload["meta"] = b.meta
		}
		b.out[i] = encodeText(vsn, null, null, topic, "broadcast", payload)
	})
	if b.out[i] == nil {
		return frame{}, false
	}
	return frame{data: b.out[i], binary: b.isBinary}, true
}

// broadcast delivers b to this node's channels of its topic but except.
// A private channel whose role may not read broadcasts gets none.
func (h *hub) broadcast(b *outBroadcast, except *channel) {
	h.mu.Lock()
	chans := h.channelsOf(b.key)
	h.mu.Unlock()
	for _, c := range chans {
		if c == except {
			continue
		}
		c.mu.Lock()
		read := c.readBroadcast
		c.mu.Unlock()
		if !read {
			continue
		}
		if f, ok := b.frameFor(c.s.vsn); ok {
			c.s.enqueue(f)
		}
	}
}
