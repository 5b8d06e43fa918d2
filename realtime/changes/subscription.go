package changes

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrSlowConsumer ends a subscription whose deliveries waited past
// Config.SubscriberQueue: its consumer does not keep up, and holding
// more for it would grow memory without bound.
var ErrSlowConsumer = errors.New("realtime: subscriber too slow; its queue of changes is full")

// Subscription is one join's postgres_changes. Deliveries reach its
// deliver function from a goroutine of its own, in commit order, so a
// slow deliver delays neither the replication reader nor other
// subscriptions: past Config.SubscriberQueue waiting deliveries the
// subscription is ended with ErrSlowConsumer (Done closes).
type Subscription struct {
	feed  *Feed
	specs []boundSpec

	mu     sync.Mutex
	who    Identity
	closed bool
	err    error
	// pending are the deliveries waiting for deliver, at most
	// Config.SubscriberQueue; a slice rather than a buffered channel,
	// so that memory follows what waits, not the bound.
	pending []Delivery
	wake    chan struct{} // signalled when pending grows
	done    chan struct{}

	// skip is the position a resumed subscription resumes after: it
	// gets no change at or before it (set before registering).
	skip Position
	// start is where the subscription began: skip, or the feed's
	// position when it registered.
	start Position
	// through is how far the feed has handed it every change: every
	// matching change at or before it is in pending or was delivered.
	through Position
	// delivering is set while deliver runs; replaying while a resumed
	// subscription's replay is read, live deliveries waiting in held.
	delivering, replaying bool
	held                  []Delivery
	// drained says, once ended, that nothing was left in pending, held
	// or deliver: everything up to through was delivered.
	drained bool
}

// boundSpec is a spec as the feed matches it.
type boundSpec struct {
	id      uint32
	event   string // INSERT, UPDATE, DELETE or *
	schema  string // or *
	table   string // or *
	filters []filter
}

func (b *boundSpec) matches(c *change) bool {
	if b.event != "*" && b.event != c.kind {
		return false
	}
	if (b.schema != "*" && b.schema != c.rel.schema) || (b.table != "*" && b.table != c.rel.table) {
		return false
	}
	if len(b.filters) == 0 {
		return true
	}
	// DELETE is filtered on the old row's values (Realtime's
	// enable_filtering_on_delete_record); others on the new row.
	row := c.record
	if c.kind == "DELETE" {
		row = c.oldRecord
	}
	return holds(b.filters, row)
}

func newSubscription(f *Feed, who Identity, specs []boundSpec, deliver func(Delivery)) *Subscription {
	s := &Subscription{feed: f, specs: specs, who: who,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	go s.run(deliver)
	return s
}

// run calls deliver for each queued delivery until the subscription
// ends.
func (s *Subscription) run(deliver func(Delivery)) {
	for {
		select {
		case <-s.done:
			return
		case <-s.wake:
		}
		for {
			s.mu.Lock()
			if s.closed || len(s.pending) == 0 {
				s.pending = nil // let a burst's memory go
				s.mu.Unlock()
				break
			}
			d := s.pending[0]
			s.pending[0] = Delivery{}
			s.pending = s.pending[1:]
			s.delivering = true
			s.mu.Unlock()
			deliver(d)
			s.mu.Lock()
			s.delivering = false
			s.mu.Unlock()
		}
	}
}

// enqueue queues list, in order, without waiting; a queue that would
// overflow ends the subscription. The overflowing deliveries are queued
// before it ends, as if they had come one by one, so that it does not
// count as drained: it resumes after what its consumer wrote, not after
// the round it never got.
func (s *Subscription) enqueue(list []Delivery) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if s.replaying {
		s.held = append(s.held, list...)
	} else {
		s.pending = append(s.pending, list...)
	}
	if len(s.pending)+len(s.held) > s.feed.cfg.SubscriberQueue {
		s.mu.Unlock()
		s.feed.unregister(s)
		s.end(ErrSlowConsumer)
		return
	}
	replaying := s.replaying
	s.mu.Unlock()
	if !replaying {
		s.signal()
	}
}

func (s *Subscription) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// advance records that every change up to p was handed over.
func (s *Subscription) advance(p Position) {
	s.mu.Lock()
	s.through = maxPosition(s.through, p)
	s.mu.Unlock()
}

// ResumeAt is where a client whose socket dropped resumes this ended
// subscription: the position after which it has seen nothing. written
// is the position of the last delivery its consumer got out (to the
// socket), zero for none; wroteAll says the consumer got out every
// delivery it was given. What the consumer was given but did not get
// out, and what was still queued, is after it: resuming there sends it
// again, and nothing twice.
func (s *Subscription) ResumeAt(written Position, wroteAll bool) Position {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case wroteAll && s.closed && s.drained:
		// A change may be out before the feed has marked its batch
		// handed over (advance comes after the batch's last enqueue).
		return maxPosition(s.through, written)
	case written.IsZero():
		return s.start
	default:
		return written
	}
}

// identity is who the subscription is now.
func (s *Subscription) identity() Identity {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.who
}

// SetIdentity changes who the subscription is (an access_token
// refresh): changes from then on are authorized as who.
func (s *Subscription) SetIdentity(who Identity) {
	s.mu.Lock()
	s.who = who
	s.mu.Unlock()
}

// Close ends the subscription; deliver is not called after it returns,
// except for a call already under way.
func (s *Subscription) Close() {
	s.feed.unregister(s)
	s.end(nil)
}

// Done is closed when the subscription ends: by Close, by the feed
// closing, or because its consumer fell behind.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err says why the subscription ended: nil after Close,
// ErrSlowConsumer or ErrFeedClosed.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Subscription) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	s.err = err
	s.drained = len(s.pending) == 0 && len(s.held) == 0 && !s.delivering && !s.replaying
	s.pending = nil
	s.held = nil
	close(s.done)
}

// register adds s to the feed's subscriptions, unless the feed closed.
// For a resumed subscription it returns the replay window's
// transactions after s.skip, taken in the same moment: every
// transaction is either among them or dispatched to s live, never both.
func (f *Feed) register(s *Subscription) ([]*txn, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs == nil {
		return nil, false
	}
	var replay []*txn
	s.mu.Lock()
	if s.replaying {
		var whole bool
		replay, whole = f.replay.after(s.skip, time.Now())
		if !whole {
			f.log.Info("realtime: a subscription resumes from before the replay window; changes in between are not sent again")
		}
		s.start = s.skip
	} else {
		s.start = f.replay.end
	}
	// A resumed subscription may come from a node further ahead than
	// this one: it has then been handed everything up to skip already.
	s.through = maxPosition(f.replay.end, s.skip)
	s.mu.Unlock()
	f.subs[s] = struct{}{}
	return replay, true
}

// replayTo authorizes the replayed transactions for s, as the live ones
// are, and puts them before the live deliveries that came meanwhile.
func (f *Feed) replayTo(ctx context.Context, s *Subscription, txns []*txn) {
	var list []Delivery
	if len(txns) > 0 {
		f.deliverTo(ctx, txns, []*Subscription{s}, func(_ *Subscription, d Delivery) { list = append(list, d) })
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if len(list)+len(s.held) > f.cfg.SubscriberQueue {
		s.mu.Unlock()
		f.unregister(s)
		s.end(ErrSlowConsumer)
		return
	}
	s.pending = append(list, s.held...)
	s.held = nil
	s.replaying = false
	s.mu.Unlock()
	s.signal()
}

func (f *Feed) unregister(s *Subscription) {
	f.mu.Lock()
	delete(f.subs, s)
	f.mu.Unlock()
}
