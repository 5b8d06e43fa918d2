package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// Redis is a Store in Redis, shared by every pgrest node that names the
// same Redis: they enforce one limit together. The algorithm is
// redis_rate's GCRA script (github.com/go-redis/redis_rate, itself after
// Pavel Pravosud's redis-gcra), which reads Redis' own clock, so the
// nodes' clocks need not agree.
type Redis struct {
	client  *redis.Client
	limiter *redis_rate.Limiter
}

// redisTimeout bounds each Redis operation when the URL sets none: the
// limiter is on every request's path, and a Redis that does not answer
// must cost a request little before the failure mode applies.
const redisTimeout = 250 * time.Millisecond

// keyPrefix keeps pgrest's keys apart from others in the same Redis
// (redis_rate adds its own "rate:" before it).
const keyPrefix = "pgrest:"

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
	c := redis.NewClient(opt)
	return &Redis{client: c, limiter: redis_rate.NewLimiter(c)}, nil
}

// Allow counts one request of key against q in Redis.
func (r *Redis) Allow(ctx context.Context, key string, q Quota) (Result, error) {
	res, err := r.limiter.Allow(ctx, keyPrefix+key, redis_rate.Limit{
		Rate: int(q.Rate.Count), Burst: q.Burst, Period: q.Rate.Period})
	if err != nil {
		return Result{}, err
	}
	return Result{Allowed: res.Allowed > 0, Remaining: res.Remaining,
		RetryAfter: res.RetryAfter, ResetAfter: res.ResetAfter}, nil
}

// Close closes the connections to Redis.
func (r *Redis) Close() error { return r.client.Close() }
