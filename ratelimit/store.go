package ratelimit

import (
	"context"
	"time"
)

// Store keeps the state of every key and decides, one request at a time,
// whether a key is within its quota.
type Store interface {
	Allow(ctx context.Context, key string, q Quota) (Result, error)
}

// Result is a store's decision for one request.
type Result struct {
	Allowed bool
	// Remaining is how many more requests the key may send at once.
	Remaining int
	// RetryAfter is, when not allowed, how long until one request is.
	RetryAfter time.Duration
	// ResetAfter is how long until the key has its whole burst again.
	ResetAfter time.Duration
}

// state is a key's state: its theoretical arrival time (tat), in the
// emission interval of the quota it was counted under. tat - now is what
// the key owes, interval says how many requests that is, so that a key
// whose quota changes (a role given a larger one in the database, a
// token with another quota claim) keeps the count it used, not the time:
// one request of 1/d used, then 100/s burst 1000, leaves 999 at once,
// not a day's wait.
type state struct {
	tat, interval time.Duration
}

// gcra is the generic cell rate algorithm of one request, as the Redis
// store's script computes it (so that the in-memory and the Redis store
// decide alike): st is the key's state (zero for a new key), now the
// time; next is the state to keep, refused or not (a refusal keeps the
// state converted to the quota's interval).
func gcra(st state, now time.Duration, q Quota) (res Result, next state) {
	interval := q.Rate.interval()
	burstOffset := interval * time.Duration(q.Burst)
	tat := max(st.tat, now)
	if st.interval != interval && st.tat > now {
		owed := float64(st.tat-now) / float64(st.interval)
		tat = now + time.Duration(owed*float64(interval))
	}
	// Never more owed than a whole burst of this quota.
	tat = min(tat, now+burstOffset)
	newTAT := tat + interval
	diff := now - (newTAT - burstOffset)
	if diff < 0 {
		return Result{RetryAfter: -diff, ResetAfter: tat - now}, state{tat, interval}
	}
	return Result{Allowed: true, Remaining: int(diff / interval), ResetAfter: newTAT - now}, state{newTAT, interval}
}
