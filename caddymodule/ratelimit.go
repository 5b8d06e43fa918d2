package caddymodule

import (
	"context"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor"
	"github.com/pgrest/caddy-pgrest/jwtauth"
	"github.com/pgrest/caddy-pgrest/ratelimit"
)

// RateLimitSettings are pgrest's rate limits, which PostgREST leaves to a
// proxy. They are embedded in Handler, so their JSON keys sit beside the
// others.
type RateLimitSettings struct {
	// The rate limits, each counted per key (client address, role, a
	// claim or several of them) for the request kinds it names. A request
	// over any of them is refused with 429 PGRST193 before it reaches the
	// database. A role's quota of a limit may be set in the database:
	// `ALTER ROLE premium SET pgrst.rate_limit.<name> = '1000/s'`, read
	// with the schema cache.
	RateLimits []ratelimit.Definition `json:"rate_limit,omitempty"`

	// A Redis URL (`redis://[:password@]host:port/db`) the limits are
	// counted in, so that every pgrest node naming it enforces one limit.
	// Empty (default): each node counts in its own memory. Placeholders
	// allowed.
	RateLimitRedis string `json:"rate_limit_redis,omitempty"`

	// What happens while Redis cannot be reached: `open` (default) lets
	// requests through uncounted, `closed` refuses them with 503
	// PGRST194. Either way each failure is counted in
	// caddy_pgrest_rate_limit_store_errors_total and logged.
	RateLimitRedisFailure string `json:"rate_limit_redis_failure,omitempty"`
}

// The values of rate_limit_redis_failure. Open is the default: a rate
// limit keeps one client from crowding out the others, and refusing
// everyone while Redis is down would turn a Redis outage into an outage
// of the API; an operator whose limits are a quota that must hold
// chooses closed.
const (
	redisFailOpen   = "open"
	redisFailClosed = "closed"
)

// unmarshalRateLimit reads one limit:
//
//	rate_limit <name> {
//	    key role claim:$.sub
//	    rate 100/s
//	    burst 20
//	    kinds read rpc:fn_name
//	    quota_claim $.quota
//	}
func (h *Handler) unmarshalRateLimit(d *caddyfile.Dispenser, sub string) error {
	var def ratelimit.Definition
	if !d.NextArg() {
		return d.Errf("%s: expected a name", sub)
	}
	def.Name = d.Val()
	if d.NextArg() {
		return d.Errf("%s %s: expected a block after the name, got %q", sub, def.Name, d.Val())
	}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		field := d.Val()
		if seen[field] {
			return d.Errf("%s %s: %s given more than once", sub, def.Name, field)
		}
		seen[field] = true
		a := d.RemainingArgs()
		if len(a) == 0 {
			return d.Errf("%s %s: %s: expected a value", sub, def.Name, field)
		}
		one := func() (string, error) {
			if len(a) != 1 {
				return "", d.Errf("%s %s: %s: expected one value, got %d", sub, def.Name, field, len(a))
			}
			return a[0], nil
		}
		var err error
		switch field {
		case "key":
			def.Key = a
		case "kinds":
			def.Kinds = a
		case "rate":
			def.Rate, err = one()
		case "quota_claim":
			def.QuotaClaim, err = one()
		case "burst":
			var s string
			if s, err = one(); err == nil {
				if _, err = fmt.Sscanf(s, "%d", &def.Burst); err != nil || fmt.Sprint(def.Burst) != s {
					err = d.Errf("%s %s: burst: %q is not a whole number", sub, def.Name, s)
				}
			}
		default:
			return d.Errf("%s %s: unrecognized field %q (key, rate, burst, kinds, quota_claim)", sub, def.Name, field)
		}
		if err != nil {
			return err
		}
	}
	// Checked now, so that the error points at the Caddyfile's line.
	if _, err := ratelimit.Compile(def); err != nil {
		return d.Err(err.Error())
	}
	h.RateLimits = append(h.RateLimits, def)
	return nil
}

// memoryStore counts the limits of every handler without
// rate_limit_redis, for the life of the process: a config reload keeps
// the counts (a reload is no way to a fresh burst), and keys the counts
// no longer need are swept. Handlers of different databases are kept
// apart by a prefix (rateLimitStore).
var memoryStore = ratelimit.NewMemory()

// prefixedStore keeps one database's keys apart from another's in the
// shared memory store.
type prefixedStore struct {
	store  ratelimit.Store
	prefix string
}

func (s prefixedStore) Allow(ctx context.Context, key string, q ratelimit.Quota) (ratelimit.Result, error) {
	return s.store.Allow(ctx, s.prefix+key, q)
}

// rateLimiter is a runtime's limiter and what closes it.
type rateLimiter struct {
	*ratelimit.Limiter
	close func()
}

// buildRateLimiter makes the limiter of eff's limits; nil without
// limits. redisURL is rate_limit_redis with its placeholders resolved.
func buildRateLimiter(eff *Handler, redisURL string, key poolKey, logger *zap.Logger) (*rateLimiter, error) {
	if len(eff.RateLimits) == 0 {
		return nil, nil
	}
	limits, err := ratelimit.CompileAll(eff.RateLimits)
	if err != nil {
		return nil, err
	}
	if redisURL == "" {
		store := prefixedStore{store: memoryStore, prefix: hex.EncodeToString(key[:8]) + ":"}
		return &rateLimiter{Limiter: ratelimit.New(limits, store, false, nil), close: func() {}}, nil
	}
	rdb, err := ratelimit.NewRedis(redisURL)
	if err != nil {
		return nil, err
	}
	failClosed := eff.RateLimitRedisFailure == redisFailClosed
	report := storeErrorReporter(logger, failClosed)
	// Closed a while after the runtime is retired: requests that started
	// under it still count through it.
	closeLater := func() { time.AfterFunc(retireAfter, func() { _ = rdb.Close() }) }
	return &rateLimiter{Limiter: ratelimit.New(limits, rdb, failClosed, report), close: closeLater}, nil
}

// retireAfter is how long a retired runtime's Redis client stays open.
const retireAfter = 30 * time.Second

// storeLogEvery is how often a failing store is logged: once per
// interval, with the count of failures since, so that a Redis outage
// under load does not flood the log.
const storeLogEvery = 10 * time.Second

// storeErrorReporter counts each store failure and logs the first of
// each storeLogEvery.
func storeErrorReporter(logger *zap.Logger, failClosed bool) func(string, error) {
	var lastLog atomic.Int64
	var since atomic.Int64
	mode := redisFailOpen
	if failClosed {
		mode = redisFailClosed
	}
	return func(limit string, err error) {
		metrics.rateLimitStoreErrors.Inc()
		n := since.Add(1)
		now := time.Now().UnixNano()
		last := lastLog.Load()
		if now-last < int64(storeLogEvery) || !lastLog.CompareAndSwap(last, now) {
			return
		}
		since.Store(0)
		logger.Error("the rate limit store (Redis) failed; requests are "+
			map[bool]string{false: "let through uncounted", true: "refused with 503 PGRST194"}[failClosed],
			zap.String("rate_limit_redis_failure", mode), zap.String("limit", limit),
			zap.Int64("failures", n), zap.Error(err))
	}
}

// limitRequest counts an authenticated request against the rate limits
// and, when one refuses it, answers 429 (or 503 when the store failed and
// fails closed) and reports true. It runs before the executor, so a
// refused request takes no pool connection and never reaches the
// database. The RateLimit header fields go on every answer the limits
// counted, refused or not.
func limitRequest(w http.ResponseWriter, r *http.Request, rt *runtime, id jwtauth.Identity) bool {
	kind, function := requestKind(r)
	if !rt.limiter.Counts(kind, function) {
		return false
	}
	req := ratelimit.Request{Address: clientAddress(r), Role: id.Role, Claims: id.Claims, Kind: kind, Function: function}
	// The roles' quotas come with the schema cache: before its first
	// load the request waits for it as the executor would, rather than
	// be counted under the limit's own rate.
	cache := rt.executor.SchemaCache()
	if cache == nil {
		var aerr *apierr.Error
		if cache, aerr = rt.executor.WaitSchemaCache(r.Context()); aerr != nil {
			apierr.Write(w, r, aerr)
			recordLimitedOutcome(r, id, executor.Outcome{Action: executor.ActionOf(r), Status: aerr.Status, Code: aerr.Code}, "")
			return true
		}
	}
	d := rt.limiter.Check(r.Context(), &req, cache.RoleRateQuotas(id.Role))
	if d.Policy != "" {
		w.Header()[ratelimit.HeaderPolicy] = []string{d.Policy}
		w.Header()[ratelimit.HeaderState] = []string{d.State}
	}
	if d.Refused == nil {
		return false
	}
	name := d.Refused.Name()
	var aerr *apierr.Error
	if d.StoreFailed {
		aerr = apierr.RateLimitUnavailable()
	} else {
		metrics.rateLimited.WithLabelValues(name).Inc()
		aerr = apierr.RateLimited(name, ratelimit.CeilSeconds(d.RetryAfter))
	}
	apierr.Write(w, r, aerr)
	recordLimitedOutcome(r, id, executor.Outcome{Action: executor.ActionOf(r), Status: aerr.Status, Code: aerr.Code}, name)
	return true
}

// requestKind is the kind a limit names a request by: rpc (with the
// function's name) for /rpc/, write for a write, read for the rest
// (reads, the API root, OPTIONS).
func requestKind(r *http.Request) (kind, function string) {
	switch executor.ActionOf(r) {
	case executor.ActionRPC:
		return ratelimit.KindRPC, strings.TrimPrefix(r.URL.Path, "/rpc/")
	case executor.ActionWrite:
		return ratelimit.KindWrite, ""
	default:
		return ratelimit.KindRead, ""
	}
}

// clientAddress is the client's IP address as Caddy resolved it
// (trusted_proxies and client_ip_headers applied), else the connection's.
func clientAddress(r *http.Request) string {
	if ip, ok := caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string); ok && ip != "" {
		return ip
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// resolveRedisURL resolves rate_limit_redis' placeholders.
func resolveRedisURL(h *Handler) (string, error) {
	return resolveSecret(caddy.NewReplacer(), "rate_limit_redis", h.RateLimitRedis)
}
