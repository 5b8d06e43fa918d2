package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is a Store in Redis, shared by every pgrest node that names the
// same Redis: they enforce one limit together.
type Redis struct {
	client *redis.Client
}

// gcraScript is gcra (store.go) run atomically in Redis. It is
// redis_rate's script (github.com/go-redis/redis_rate, BSD-2-Clause,
// itself after Pavel Pravosud's redis-gcra) with the state of store.go:
// the time and the interval it is counted in ("tat interval"), so that a
// key whose quota changes keeps the count it used. It reads Redis' own
// clock, so the nodes' clocks need not agree. It returns allowed (0 or
// 1), remaining, and retry_after and reset_after in seconds as strings (a
// Lua number returned to Redis loses its fraction). A key expires a
// second or more from now: the float's resolution (tens of nanoseconds)
// makes a share of a very high rate zero, and EX refuses 0.
var gcraScript = redis.NewScript(`
redis.replicate_commands()
local key = KEYS[1]
local burst = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local period = tonumber(ARGV[3])
local interval = period / rate
local burst_offset = interval * burst
-- Seconds since 2017 keep the float's digits for the microseconds.
local t = redis.call("TIME")
local now = (t[1] - 1483228800) + (t[2] / 1000000)
local tat = now
local stored = redis.call("GET", key)
if stored then
  local s_tat, s_interval = string.match(stored, "^(%S+) (%S+)$")
  s_tat, s_interval = tonumber(s_tat), tonumber(s_interval)
  if s_tat and s_interval and s_tat > now then
    tat = now + (s_tat - now) / s_interval * interval
  end
end
tat = math.min(tat, now + burst_offset)
local new_tat = tat + interval
local diff = now - (new_tat - burst_offset)
if diff < 0 then
  redis.call("SET", key, string.format("%.6f %.9f", tat, interval), "EX", math.max(1, math.ceil(tat - now)))
  return {0, 0, tostring(-diff), tostring(tat - now)}
end
local reset_after = new_tat - now
redis.call("SET", key, string.format("%.6f %.9f", new_tat, interval), "EX", math.max(1, math.ceil(reset_after)))
return {1, math.floor(diff / interval), "-1", tostring(reset_after)}
`)

// redisTimeout bounds each Redis operation when the URL sets none: the
// limiter is on every request's path, and a Redis that does not answer
// must cost a request little before the failure mode applies.
const redisTimeout = 250 * time.Millisecond

// keyPrefix keeps pgrest's keys apart from others in the same Redis.
const keyPrefix = "pgrest:rate:"

// NewRedis connects to the Redis of url (`redis://[:password@]host:port/db`,
// with go-redis' options as query parameters). It does not dial: a Redis
// that is down at start is a store error on each request, not a startup
// error.
func NewRedis(url string) (*Redis, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("rate_limit_redis: %w", err)
	}
	if opt.DialTimeout == 0 {
		opt.DialTimeout = redisTimeout
	}
	if opt.ReadTimeout == 0 {
		opt.ReadTimeout = redisTimeout
	}
	if opt.WriteTimeout == 0 {
		opt.WriteTimeout = redisTimeout
	}
	if opt.PoolTimeout == 0 {
		opt.PoolTimeout = redisTimeout
	}
	// A failed call is not retried: the failure mode decides at once.
	opt.MaxRetries = -1
	return &Redis{client: redis.NewClient(opt)}, nil
}

// Allow counts one request of key against q in Redis.
func (r *Redis) Allow(ctx context.Context, key string, q Quota) (Result, error) {
	v, err := gcraScript.Run(ctx, r.client, []string{keyPrefix + key},
		q.Burst, q.Rate.Count, q.Rate.Period.Seconds()).Slice()
	if err != nil {
		return Result{}, err
	}
	if len(v) != 4 {
		return Result{}, fmt.Errorf("the rate limit script answered %d values, want 4", len(v))
	}
	allowed, _ := v[0].(int64)
	remaining, _ := v[1].(int64)
	retry, err1 := seconds(v[2])
	reset, err2 := seconds(v[3])
	if err1 != nil || err2 != nil {
		return Result{}, fmt.Errorf("the rate limit script answered %v", v)
	}
	res := Result{Allowed: allowed == 1, Remaining: int(remaining), ResetAfter: reset}
	if !res.Allowed {
		res.RetryAfter = retry
	}
	return res, nil
}

func seconds(v any) (time.Duration, error) {
	s, _ := v.(string)
	f, err := strconv.ParseFloat(s, 64)
	return time.Duration(f * float64(time.Second)), err
}

// Close closes the connections to Redis.
func (r *Redis) Close() error { return r.client.Close() }
