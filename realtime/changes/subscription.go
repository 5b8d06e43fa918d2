package changes

import (
	"errors"
	"sync"
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
			s.mu.Unlock()
			deliver(d)
		}
	}
}

// enqueue queues d without waiting; a full queue ends the subscription.
func (s *Subscription) enqueue(d Delivery) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if len(s.pending) >= s.feed.cfg.SubscriberQueue {
		s.mu.Unlock()
		s.feed.unregister(s)
		s.end(ErrSlowConsumer)
		return
	}
	s.pending = append(s.pending, d)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
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
	s.pending = nil
	close(s.done)
}

// register adds s to the feed's subscriptions, unless the feed closed.
func (f *Feed) register(s *Subscription) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs == nil {
		return false
	}
	f.subs[s] = struct{}{}
	return true
}

func (f *Feed) unregister(s *Subscription) {
	f.mu.Lock()
	delete(f.subs, s)
	f.mu.Unlock()
}

// subscriptions is a snapshot of the live subscriptions.
func (f *Feed) subscriptions() []*Subscription {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := make([]*Subscription, 0, len(f.subs))
	for s := range f.subs {
		out = append(out, s)
	}
	return out
}
