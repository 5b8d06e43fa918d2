package realtime

import (
	"context"
	"errors"
	"sync"

	"go.uber.org/zap"
)

// A channel's postgres_changes have ids of the channel's own, 1 to n in
// the order of the join's specs, given in the join's reply before the
// feed is asked (Supabase's ids are a hash of each spec: the reply never
// waits for the subscription either). The feed's ids are mapped onto
// them in each delivery.

// boundReplies are the join's specs as its reply lists them: {"id",
// "event", "schema", "table", "filter"}; realtime-js matches each against
// the binding it sent (a table or filter it did not send is left out).
func (c *channel) boundReplies() []map[string]any {
	out := make([]map[string]any, 0, len(c.specs))
	for i, spec := range c.specs {
		b := map[string]any{"id": uint32(i + 1), "event": spec.Event, "schema": spec.Schema}
		if spec.Table != "" {
			b["table"] = spec.Table
		}
		if spec.Filter != "" {
			b["filter"] = spec.Filter
		}
		out = append(out, b)
	}
	return out
}

// changeSink takes one subscription's deliveries: held until open (the
// join's reply goes first), then pushed with the channel's ids.
type changeSink struct {
	c       *channel
	mu      sync.Mutex
	ready   bool
	pending []ChangeDelivery
	ids     map[uint32]uint32
	// received is the position of the last delivery given to the sink,
	// written that of the last one written to the socket (or skipped).
	received, written ChangePosition
}

// progress is where the socket got to: the position of the last
// delivery written, and whether every delivery given was written.
func (k *changeSink) progress() (ChangePosition, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.written, k.written == k.received
}

func (k *changeSink) wrote(pos ChangePosition) {
	k.mu.Lock()
	if pos.After(k.written) {
		k.written = pos
	}
	k.mu.Unlock()
}

func (k *changeSink) deliver(d ChangeDelivery) {
	k.mu.Lock()
	k.received = d.Pos
	if !k.ready {
		k.pending = append(k.pending, d)
		k.mu.Unlock()
		return
	}
	ids := k.ids
	k.mu.Unlock()
	k.push(ids, d)
}

// open pushes what came before, then lets deliveries through.
func (k *changeSink) open() {
	k.mu.Lock()
	early := k.pending
	k.pending = nil
	k.ready = true
	ids := k.ids
	k.mu.Unlock()
	for _, d := range early {
		k.push(ids, d)
	}
}

// push sends a change as Supabase does: postgres_changes {"ids":[…],
// "data":{…}}.
func (k *changeSink) push(ids map[uint32]uint32, d ChangeDelivery) {
	mine := make([]uint32, 0, len(d.IDs))
	for _, id := range d.IDs {
		if m, ok := ids[id]; ok {
			mine = append(mine, m)
		}
	}
	if len(mine) == 0 {
		k.wrote(d.Pos)
		return
	}
	data := encodeChange(k.c.s.vsn, k.c.topic, mine, d.Data)
	k.c.s.enqueue(frame{data: data, written: func() { k.wrote(d.Pos) }})
}

// subscribeChanges subscribes the channel's specs for id. On success it
// returns the sink, still closed; on a refusal, the text for the
// client.
func (c *channel) subscribeChanges(ctx context.Context, id identity, from ChangePosition) (*changeSink, string) {
	sink := &changeSink{c: c}
	sub, bound, err := c.s.srv.cfg.Feed.Subscribe(ctx, changeIdentity(id), c.specs, from, sink.deliver)
	if err != nil {
		var serr *ChangeSubscribeError
		if errors.As(err, &serr) {
			return nil, serr.Message
		}
		c.s.srv.log.Warn("realtime postgres_changes subscription failed", zap.String("topic", c.sub), zap.Error(err))
		return nil, "Unable to subscribe to changes"
	}
	sink.mu.Lock()
	sink.ids = make(map[uint32]uint32, len(bound))
	for i, b := range bound {
		sink.ids[b.ID] = uint32(i + 1)
	}
	sink.mu.Unlock()
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		sub.Close()
		return nil, "channel closed"
	}
	c.changes = sub
	c.sink = sink
	c.mu.Unlock()
	go c.watchChanges(sub)
	return sink, ""
}

// resumable is the channel's change subscription, for its client to
// resume when it rejoins; nil when there is nothing to resume.
func (c *channel) resumable() *resumable {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.resumeKey == "" || c.changes == nil || c.stopped {
		return nil
	}
	return &resumable{key: c.resumeKey, sub: c.changes, sink: c.sink}
}
