package ratelimit

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Rate is how many requests a limit lets through per period, in the
// long run.
type Rate struct {
	Count  int64
	Period time.Duration
}

// periods are the units a rate may be written per: whole seconds, so that
// RateLimit-Policy's window (w, an integer of seconds) says the rate
// exactly.
var periods = map[string]time.Duration{
	"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour,
}

// ParseRate reads a rate written `<count>/<unit>`, such as `100/s`,
// `10/m`, `1000/h` or `50000/d`.
func ParseRate(s string) (Rate, error) {
	count, unit, ok := strings.Cut(strings.TrimSpace(s), "/")
	period, known := periods[unit]
	if !ok || !known {
		return Rate{}, fmt.Errorf("%q is not a rate such as 100/s, 10/m, 1000/h or 50000/d", s)
	}
	n, err := strconv.ParseInt(count, 10, 64)
	if err != nil || n < 1 || n > 1_000_000_000 {
		return Rate{}, fmt.Errorf("%q: the count must be a whole number from 1 to 1000000000", s)
	}
	return Rate{Count: n, Period: period}, nil
}

// String writes r as ParseRate reads it.
func (r Rate) String() string {
	for unit, p := range periods {
		if p == r.Period {
			return strconv.FormatInt(r.Count, 10) + "/" + unit
		}
	}
	return strconv.FormatInt(r.Count, 10) + "/" + r.Period.String()
}

// interval is the emission interval of the cell rate algorithm: the time
// one request's share of the rate takes to come back.
func (r Rate) interval() time.Duration { return r.Period / time.Duration(r.Count) }

// Quota is a rate and a burst: at most Burst requests at once, then Rate.
type Quota struct {
	Rate  Rate
	Burst int
}

// maxBurst bounds a burst so that interval × burst cannot overflow.
const maxBurst = 1_000_000

// ParseQuota reads a quota as a role setting or a quota claim gives it:
// a rate, optionally followed by `burst <n>`, such as `1000/s` or
// `1000/s burst 200`. A quota without a burst keeps def's.
func ParseQuota(s string, def Quota) (Quota, error) {
	fields := strings.Fields(s)
	q := def
	switch {
	case len(fields) == 1:
	case len(fields) == 3 && fields[1] == "burst":
		b, err := parseBurst(fields[2])
		if err != nil {
			return def, err
		}
		q.Burst = b
	default:
		return def, fmt.Errorf("%q is not a quota such as 1000/s or 1000/s burst 200", s)
	}
	r, err := ParseRate(fields[0])
	if err != nil {
		return def, err
	}
	q.Rate = r
	return q, nil
}

// ParseRoleQuota reads a role's pgrst.rate_limit.<name> setting, written
// as ParseQuota reads it. A quota without a burst has Burst 0: the burst
// of the limit it is applied to.
func ParseRoleQuota(s string) (Quota, error) {
	return ParseQuota(s, Quota{})
}

func parseBurst(s string) (int, error) {
	b, err := strconv.Atoi(s)
	if err != nil || b < 1 || b > maxBurst {
		return 0, fmt.Errorf("burst %q must be a whole number from 1 to %d", s, maxBurst)
	}
	return b, nil
}
