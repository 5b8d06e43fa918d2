package ratelimit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// Definition is a rate limit as the configuration writes it.
type Definition struct {
	// The limit's name: in the RateLimit header fields, the metrics, the
	// access log and the role setting pgrst.rate_limit.<name>. Letters,
	// digits and `_` only.
	Name string `json:"name"`
	// What requests are counted under: one or more of `address` (the
	// client address, as Caddy's trusted_proxies resolve it), `role`,
	// and `claim:<path>` (a claim of the token, written as
	// jwt_role_claim_key is, such as `claim:$.sub`). Several parts make
	// one key of all of them.
	Key []string `json:"key"`
	// The rate, such as `100/s`, `10/m`, `1000/h` or `50000/d`.
	Rate string `json:"rate"`
	// How many requests may come at once. Default: 1.
	Burst int `json:"burst,omitempty"`
	// The kinds of request counted: `read`, `write`, `rpc`, or
	// `rpc:<function>` for calls of one function. Default: every kind.
	Kinds []string `json:"kinds,omitempty"`
	// A claim holding the quota of the token's bearer (such as `1000/s`
	// or `1000/s burst 200`), written as a key's claim path is. A token
	// without it, or with one that does not parse, gets the limit's
	// own rate and burst.
	QuotaClaim string `json:"quota_claim,omitempty"`
}

// Limit is a compiled Definition.
type Limit struct {
	name  string
	key   []keyPart
	quota Quota
	// kinds are the request kinds counted (nil: every kind); functions
	// the functions whose calls are, beside the kinds.
	kinds      []string
	functions  []string
	quotaClaim *jwtauth.ClaimPath
}

// Request kinds a limit may name.
const (
	KindRead  = "read"
	KindWrite = "write"
	KindRPC   = "rpc"
)

// Name is the limit's name.
func (l *Limit) Name() string { return l.name }

// Compile checks d and makes its Limit. Errors name the limit and the
// field, so a bad configuration is a startup error that says where.
func Compile(d Definition) (*Limit, error) {
	if !isName(d.Name) {
		return nil, fmt.Errorf("rate_limit: name %q must be letters, digits and _", d.Name)
	}
	fail := func(field string, err error) error {
		return fmt.Errorf("rate_limit %s: %s: %w", d.Name, field, err)
	}
	l := &Limit{name: d.Name, quota: Quota{Burst: d.Burst}}
	if l.quota.Burst == 0 {
		l.quota.Burst = 1
	}
	if l.quota.Burst < 1 || l.quota.Burst > maxBurst {
		return nil, fail("burst", fmt.Errorf("%d is not from 1 to %d", d.Burst, maxBurst))
	}
	r, err := ParseRate(d.Rate)
	if err != nil {
		return nil, fail("rate", err)
	}
	l.quota.Rate = r
	if l.key, err = parseKey(d.Key); err != nil {
		return nil, fail("key", err)
	}
	for _, k := range d.Kinds {
		switch fn, isFn := strings.CutPrefix(k, KindRPC+":"); {
		case isFn && fn != "":
			l.functions = append(l.functions, fn)
		case k == KindRead || k == KindWrite || k == KindRPC:
			l.kinds = append(l.kinds, k)
		default:
			return nil, fail("kinds", fmt.Errorf("%q is none of read, write, rpc, rpc:<function>", k))
		}
	}
	if d.QuotaClaim != "" {
		p, err := jwtauth.ParseClaimPath(d.QuotaClaim)
		if err != nil {
			return nil, fail("quota_claim", err)
		}
		l.quotaClaim = &p
	}
	return l, nil
}

// CompileAll compiles every definition and refuses two of one name.
func CompileAll(defs []Definition) ([]*Limit, error) {
	out := make([]*Limit, 0, len(defs))
	for i, d := range defs {
		if slices.ContainsFunc(defs[:i], func(o Definition) bool { return o.Name == d.Name }) {
			return nil, fmt.Errorf("rate_limit %s: defined twice", d.Name)
		}
		l, err := Compile(d)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// applies says whether the limit counts a request of kind calling
// function (empty when it calls none).
func (l *Limit) applies(kind, function string) bool {
	if l.kinds == nil && l.functions == nil {
		return true
	}
	return slices.Contains(l.kinds, kind) || (function != "" && slices.Contains(l.functions, function))
}

// quotaFor is the quota of a request: the role's (roleQuota, when
// hasRole, from ALTER ROLE ... SET pgrst.rate_limit.<name>, checked when
// the schema cache was loaded; a Burst of 0 is the limit's own), else the
// token's quota claim, else the limit's own. A claim that does not parse
// is the limit's own: a bad claim is never the client's error nor a 5xx.
func (l *Limit) quotaFor(roleQuota Quota, hasRole bool, claims map[string]any) Quota {
	if hasRole {
		if roleQuota.Burst == 0 {
			roleQuota.Burst = l.quota.Burst
		}
		return roleQuota
	}
	if l.quotaClaim != nil {
		if v, ok := l.quotaClaim.Lookup(claims); ok {
			if s, ok := v.(string); ok {
				if q, err := ParseQuota(s, l.quota); err == nil {
					return q
				}
			}
		}
	}
	return l.quota
}

// isName says whether s is a limit name: it becomes part of a setting
// name and a structured-field string, so it is kept plain.
func isName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}
