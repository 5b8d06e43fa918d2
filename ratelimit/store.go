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

// gcra is the generic cell rate algorithm of one request, as
// redis_rate's script computes it (so that the in-memory and the Redis
// store decide alike): tat is the key's theoretical arrival time (zero
// for a new key), now the time; newTAT is what to store when allowed.
func gcra(tat, now time.Duration, q Quota) (res Result, newTAT time.Duration) {
	interval := q.Rate.interval()
	tat = max(tat, now)
	newTAT = tat + interval
	allowAt := newTAT - interval*time.Duration(q.Burst)
	diff := now - allowAt
	if diff < 0 {
		return Result{RetryAfter: -diff, ResetAfter: tat - now}, tat
	}
	return Result{Allowed: true, Remaining: int(diff / interval), ResetAfter: newTAT - now}, newTAT
}
