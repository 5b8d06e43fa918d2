package ratelimit

import (
	"context"
	"sync/atomic"
	"time"
)

// Limiter applies a configuration's limits to requests.
type Limiter struct {
	limits []*Limit
	store  Store
	// failClosed refuses requests while the store fails; else they go
	// on uncounted.
	failClosed bool
	// onStoreError is told of every failed store call (metrics, log).
	onStoreError func(limit string, err error)
	// downUntil is when the store is next tried after a failure (Unix
	// nanoseconds): while Redis is down, each request is not made to
	// wait for a dial that will fail again.
	downUntil atomic.Int64
}

// storeBackoff is how long a failed store is left alone.
const storeBackoff = time.Second

// SettingPrefix starts the role setting of a limit's quota:
// ALTER ROLE premium SET pgrst.rate_limit.<name> = '1000/s'. The schema
// cache reads these settings (ParseRoleQuota) and hands a request's role
// its quotas by limit name.
const SettingPrefix = "pgrst.rate_limit."

// New returns a limiter of limits counted in store. onStoreError, when
// not nil, is told of each failed store call.
func New(limits []*Limit, store Store, failClosed bool, onStoreError func(limit string, err error)) *Limiter {
	return &Limiter{limits: limits, store: store, failClosed: failClosed, onStoreError: onStoreError}
}

// Decision is the limiter's answer for one request.
type Decision struct {
	// Refused is the limit that refused the request; nil when allowed.
	Refused *Limit
	// StoreFailed says the refusal is the store's failure under
	// fail-closed, not the limit's count.
	StoreFailed bool
	// RetryAfter is when the refused request may be sent again.
	RetryAfter time.Duration
	// Policy and State are the RateLimit-Policy and RateLimit field
	// values of the limits that counted the request; empty when none did.
	Policy, State string
}

// Check counts r against every limit that applies to it, in the order
// of the configuration, and stops at the first that refuses it (the
// limits before it have counted it: a refused request uses up a share of
// them as an allowed one would, as in redis_rate). roleQuotas are the
// request role's quotas by limit name, from its pgrst.rate_limit.<name>
// settings (ParseRoleQuota); nil for none.
func (l *Limiter) Check(ctx context.Context, r *Request, roleQuotas map[string]Quota) Decision {
	var d Decision
	var h headerWriter
	for _, lim := range l.limits {
		if !lim.applies(r.Kind, r.Function) {
			continue
		}
		rq, hasRQ := roleQuotas[lim.name]
		q := lim.quotaFor(rq, hasRQ, r.Claims)
		res, err := l.allow(ctx, lim, q, r)
		if err != nil {
			if l.failClosed {
				d.Refused, d.StoreFailed, d.RetryAfter = lim, true, storeBackoff
				break
			}
			continue
		}
		h.add(lim.name, q, res)
		if !res.Allowed {
			d.Refused, d.RetryAfter = lim, res.RetryAfter
			break
		}
	}
	d.Policy, d.State = h.values()
	return d
}

// allow asks the store, unless it failed a moment ago.
func (l *Limiter) allow(ctx context.Context, lim *Limit, q Quota, r *Request) (Result, error) {
	if until := l.downUntil.Load(); until != 0 && time.Now().UnixNano() < until {
		return Result{}, errStoreDown
	}
	res, err := l.store.Allow(ctx, lim.keyOf(r), q)
	if err != nil {
		l.downUntil.Store(time.Now().Add(storeBackoff).UnixNano())
		if l.onStoreError != nil {
			l.onStoreError(lim.name, err)
		}
		return Result{}, err
	}
	if l.downUntil.Load() != 0 {
		l.downUntil.Store(0)
	}
	return res, nil
}

// errStoreDown stands for the store while it is left alone after a
// failure.
var errStoreDown = storeDownError{}

type storeDownError struct{}

func (storeDownError) Error() string { return "the rate limit store failed less than a second ago" }
