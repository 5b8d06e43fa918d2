package realtime

import (
	"encoding/json"
	"maps"
	"slices"
)

// meta is one tracked presence: the client's payload with phx_ref (and
// phx_ref_prev after an update), as Phoenix.Presence lists it.
type meta struct {
	ref string
	raw json.RawMessage
}

func (m meta) MarshalJSON() ([]byte, error) { return m.raw, nil }

// presenceState is a topic's presences: this node's, by key and channel,
// and those the other nodes reported, by node and key.
type presenceState struct {
	local  map[string]map[*channel]meta
	remote map[string]map[string][]meta
}

func (p *presenceState) empty() bool { return len(p.local) == 0 && len(p.remote) == 0 }

// byKey is the state as presence_state sends it: {key: {"metas": [...]}}
// (Phoenix.Presence.group), this node's and every other node's merged.
func (p *presenceState) byKey() map[string]map[string][]meta {
	out := map[string]map[string][]meta{}
	add := func(key string, m meta) {
		if out[key] == nil {
			out[key] = map[string][]meta{"metas": {}}
		}
		out[key]["metas"] = append(out[key]["metas"], m)
	}
	for key, chans := range p.local {
		for _, m := range chans {
			add(key, m)
		}
	}
	for _, keys := range p.remote {
		for key, ms := range keys {
			for _, m := range ms {
				add(key, m)
			}
		}
	}
	return out
}

// localByKey is this node's presences of a topic, for the other nodes.
func (p *presenceState) localByKey() map[string][]meta {
	out := map[string][]meta{}
	for key, chans := range p.local {
		for _, m := range chans {
			out[key] = append(out[key], m)
		}
	}
	return out
}

// diff is a presence_diff: joins and leaves by key.
type diff struct {
	joins, leaves map[string][]meta
}

func (d diff) empty() bool { return len(d.joins) == 0 && len(d.leaves) == 0 }

func (d diff) payload() map[string]any {
	group := func(in map[string][]meta) map[string]any {
		out := map[string]any{}
		for k, ms := range in {
			out[k] = map[string][]meta{"metas": ms}
		}
		return out
	}
	return map[string]any{"joins": group(d.joins), "leaves": group(d.leaves)}
}

// newMeta is a payload with a new phx_ref, and phx_ref_prev when it
// replaces a tracked one (Phoenix.Presence.update).
func newMeta(obj map[string]json.RawMessage, prev string) meta {
	m := maps.Clone(obj)
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	ref := randomRef()
	m["phx_ref"], _ = json.Marshal(ref)
	if prev != "" {
		m["phx_ref_prev"], _ = json.Marshal(prev)
	} else {
		delete(m, "phx_ref_prev")
	}
	raw, _ := json.Marshal(m)
	return meta{ref: ref, raw: raw}
}

// metaOf reads a meta another node sent.
func metaOf(raw json.RawMessage) (meta, bool) {
	var m struct {
		Ref string `json:"phx_ref"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Ref == "" {
		return meta{}, false
	}
	return meta{ref: m.Ref, raw: raw}, true
}

// track adds or replaces c's presence and tells every channel of the
// topic, here and on the other nodes.
func (h *hub) track(c *channel, obj map[string]json.RawMessage) {
	h.mu.Lock()
	t := h.topic(c.key)
	if t.presence.local == nil {
		t.presence.local = map[string]map[*channel]meta{}
	}
	if t.presence.local[c.presenceKey] == nil {
		t.presence.local[c.presenceKey] = map[*channel]meta{}
	}
	old, had := t.presence.local[c.presenceKey][c]
	m := newMeta(obj, old.ref)
	t.presence.local[c.presenceKey][c] = m
	d := diff{joins: map[string][]meta{c.presenceKey: {m}}}
	if had {
		d.leaves = map[string][]meta{c.presenceKey: {old}}
	}
	chans := h.channelsOf(c.key)
	h.mu.Unlock()
	h.pushDiff(c.key, chans, d)
	h.srv.bus.publishDiff(c.key, d)
}

// untrack removes c's presence, if any.
func (h *hub) untrack(c *channel) {
	h.mu.Lock()
	t := h.topics[c.key]
	if t == nil || t.presence.local[c.presenceKey] == nil {
		h.mu.Unlock()
		return
	}
	old, had := t.presence.local[c.presenceKey][c]
	if !had {
		h.mu.Unlock()
		return
	}
	delete(t.presence.local[c.presenceKey], c)
	if len(t.presence.local[c.presenceKey]) == 0 {
		delete(t.presence.local, c.presenceKey)
	}
	chans := h.channelsOf(c.key)
	h.dropIfEmpty(c.key)
	h.mu.Unlock()
	d := diff{leaves: map[string][]meta{c.presenceKey: {old}}}
	h.pushDiff(c.key, chans, d)
	h.srv.bus.publishDiff(c.key, d)
}

// pushDiff sends presence_diff to the channels with presence enabled
// that may read it.
func (h *hub) pushDiff(key hubKey, chans []*channel, d diff) {
	if d.empty() {
		return
	}
	payload := d.payload()
	for _, c := range chans {
		c.mu.Lock()
		enabled := c.presenceEnabled && c.readPresence && !c.stopped
		c.mu.Unlock()
		if enabled {
			c.s.push(null, null, c.topic, "presence_diff", payload)
		}
	}
}

// pushPresenceState sends the topic's presences to c, unless c may not
// read them (presence_handler.ex's sync: nothing for a private channel
// without presence read).
func (c *channel) pushPresenceState() {
	c.mu.Lock()
	read := c.readPresence
	c.mu.Unlock()
	if !read {
		return
	}
	h := c.s.srv.hub
	h.mu.Lock()
	var state map[string]map[string][]meta
	if t := h.topics[c.key]; t != nil {
		state = t.presence.byKey()
	} else {
		state = map[string]map[string][]meta{}
	}
	h.mu.Unlock()
	c.s.push(c.joinRef, null, c.topic, "presence_state", state)
}

// applyRemote applies another node's diff and passes it on.
func (h *hub) applyRemote(node string, key hubKey, joins, leaves map[string][]json.RawMessage) {
	h.mu.Lock()
	t := h.topic(key)
	if t.presence.remote == nil {
		t.presence.remote = map[string]map[string][]meta{}
	}
	keys := t.presence.remote[node]
	if keys == nil {
		keys = map[string][]meta{}
		t.presence.remote[node] = keys
	}
	d := diff{joins: map[string][]meta{}, leaves: map[string][]meta{}}
	for k, raws := range leaves {
		for _, raw := range raws {
			m, ok := metaOf(raw)
			if !ok {
				continue
			}
			before := len(keys[k])
			keys[k] = slices.DeleteFunc(keys[k], func(x meta) bool { return x.ref == m.ref })
			if len(keys[k]) < before {
				d.leaves[k] = append(d.leaves[k], m)
			}
			if len(keys[k]) == 0 {
				delete(keys, k)
			}
		}
	}
	for k, raws := range joins {
		for _, raw := range raws {
			if m, ok := metaOf(raw); ok {
				keys[k] = append(keys[k], m)
				d.joins[k] = append(d.joins[k], m)
			}
		}
	}
	if len(keys) == 0 {
		delete(t.presence.remote, node)
	}
	chans := h.channelsOf(key)
	h.dropIfEmpty(key)
	h.mu.Unlock()
	h.pushDiff(key, chans, d)
}

// replaceRemote replaces what another node reported for a topic with its
// full state (sent when a node asks, after it starts or reconnects), and
// passes on what changed.
func (h *hub) replaceRemote(node string, key hubKey, state map[string][]json.RawMessage) {
	h.mu.Lock()
	oldRefs := map[string]map[string]json.RawMessage{}
	if t := h.topics[key]; t != nil {
		for k, ms := range t.presence.remote[node] {
			oldRefs[k] = map[string]json.RawMessage{}
			for _, m := range ms {
				oldRefs[k][m.ref] = m.raw
			}
		}
	}
	h.mu.Unlock()
	joins := map[string][]json.RawMessage{}
	for k, raws := range state {
		for _, raw := range raws {
			m, ok := metaOf(raw)
			if !ok {
				continue
			}
			if _, kept := oldRefs[k][m.ref]; kept {
				delete(oldRefs[k], m.ref)
				continue
			}
			joins[k] = append(joins[k], raw)
		}
	}
	leaves := map[string][]json.RawMessage{}
	for k, refs := range oldRefs {
		for _, raw := range refs {
			leaves[k] = append(leaves[k], raw)
		}
	}
	h.applyRemote(node, key, joins, leaves)
}

// dropNode forgets every presence of a node that left or went silent.
func (h *hub) dropNode(node string) {
	h.mu.Lock()
	var keys []hubKey
	for key, t := range h.topics {
		if _, ok := t.presence.remote[node]; ok {
			keys = append(keys, key)
		}
	}
	h.mu.Unlock()
	for _, key := range keys {
		h.replaceRemote(node, key, nil)
	}
}

// localStates is this node's presences by topic, for a node that asks.
func (h *hub) localStates() map[hubKey]map[string][]meta {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[hubKey]map[string][]meta{}
	for key, t := range h.topics {
		if len(t.presence.local) > 0 {
			out[key] = t.presence.localByKey()
		}
	}
	return out
}
