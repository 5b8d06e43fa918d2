package changes

import "time"

// changeOverhead is what a change costs the replay window beyond its
// values' bytes (its maps, the relation pointer, its key), a rough
// figure that keeps the bound honest for rows of small values.
const changeOverhead = 256

// window is the replay window: the transactions this node dispatched in
// the last Config.ReplayWindow, at most Config.ReplayMaxBytes of them,
// for subscriptions that resume after a dropped socket (SubscribeFrom).
// It holds every transaction of the publication, subscribed to or not:
// a client may resume here after subscribing through another node.
// Guarded by the feed's mu.
type window struct {
	keep     time.Duration
	maxBytes int
	entries  []windowEntry // oldest first
	bytes    int
	// since is the position after which every dispatched change is
	// still held: what was evicted last, or where the feed began.
	since Position
	// end is the position after the last transaction dispatched.
	end Position
}

type windowEntry struct {
	t    *txn
	at   time.Time
	size int
}

// add records a dispatched transaction and lets go of what fell out of
// the window.
func (w *window) add(t *txn, now time.Time) {
	w.end = Position{LSN: uint64(t.commitLSN), Seq: wholeTxn}
	if w.keep <= 0 {
		w.since = w.end
		return
	}
	size := 0
	for i := range t.changes {
		size += t.changes[i].size + changeOverhead
	}
	w.entries = append(w.entries, windowEntry{t: t, at: now, size: size})
	w.bytes += size
	w.evict(now)
}

// evict drops the transactions older than the window and, past the
// byte bound, the oldest.
func (w *window) evict(now time.Time) {
	n := 0
	for n < len(w.entries) && (now.Sub(w.entries[n].at) > w.keep || w.bytes > w.maxBytes) {
		w.bytes -= w.entries[n].size
		w.since = Position{LSN: uint64(w.entries[n].t.commitLSN), Seq: wholeTxn}
		w.entries[n] = windowEntry{}
		n++
	}
	if n > 0 {
		w.entries = append(w.entries[:0:0], w.entries[n:]...)
	}
}

// after returns the held transactions with changes after p, oldest
// first, and whether the window still holds everything after p.
func (w *window) after(p Position, now time.Time) ([]*txn, bool) {
	w.evict(now)
	var out []*txn
	for _, e := range w.entries {
		if uint64(e.t.commitLSN) >= p.LSN {
			out = append(out, e.t)
		}
	}
	return out, !w.since.After(p)
}
