package ratelimit

import (
	"math"
	"strconv"
	"time"
)

// The header fields of draft-ietf-httpapi-ratelimit-headers (draft 10):
// RateLimit-Policy lists each limit that counted the request as a
// structured-field item, its name with q (the quota: the rate's count)
// and w (the window in seconds: the rate's period), `"per_user";q=100;w=1`
// for 100/s; RateLimit says where the request's key stands, r (how many
// more requests may be sent at once) and t (seconds, rounded up: until
// the next request is allowed when r is 0, else until the whole burst is
// back), `"per_user";r=19;t=1`. They are sent on allowed answers too, as
// the draft recommends, so that a client can slow down before it is
// refused. pk (the partition key) is left out: it would tell the client
// the key it is counted under (an address, a claim).
const (
	HeaderPolicy = "RateLimit-Policy"
	HeaderState  = "RateLimit"
)

// headerWriter builds both field values, one item per limit.
type headerWriter struct {
	policy, state []byte
}

func (h *headerWriter) add(name string, q Quota, res Result) {
	if len(h.policy) > 0 {
		h.policy = append(h.policy, ", "...)
		h.state = append(h.state, ", "...)
	}
	h.policy = append(h.policy, '"')
	h.policy = append(h.policy, name...)
	h.policy = append(h.policy, `";q=`...)
	h.policy = strconv.AppendInt(h.policy, q.Rate.Count, 10)
	h.policy = append(h.policy, ";w="...)
	h.policy = strconv.AppendInt(h.policy, int64(q.Rate.Period/time.Second), 10)

	t := res.ResetAfter
	if !res.Allowed {
		t = res.RetryAfter
	}
	h.state = append(h.state, '"')
	h.state = append(h.state, name...)
	h.state = append(h.state, `";r=`...)
	h.state = strconv.AppendInt(h.state, int64(res.Remaining), 10)
	h.state = append(h.state, ";t="...)
	h.state = strconv.AppendInt(h.state, CeilSeconds(t), 10)
}

func (h *headerWriter) values() (policy, state string) {
	return string(h.policy), string(h.state)
}

// CeilSeconds is d in whole seconds, rounded up (Retry-After and t are
// whole seconds: rounding down would tell a client to come back early,
// only to be refused again).
func CeilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64(math.Ceil(d.Seconds()))
}
