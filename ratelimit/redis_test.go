package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/ratelimit"
	"github.com/pgrest/caddy-pgrest/tests/redistest"
)

// The Redis store decides as the in-memory one: the burst, then refused
// with the time until the next request's share is back; a quota that
// grows starts empty; a Redis that is down is an error, for the failure
// mode to decide.
func TestRedisStore(t *testing.T) {
	srv := redistest.Start(t)
	store, err := ratelimit.NewRedis(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	q := ratelimit.Quota{Rate: ratelimit.Rate{Count: 1, Period: 24 * time.Hour}, Burst: 2}
	var got []ratelimit.Result
	for range 3 {
		res, err := store.Allow(ctx, "k", q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, res)
	}
	if !got[0].Allowed || got[0].Remaining != 1 || !got[1].Allowed || got[1].Remaining != 0 || got[2].Allowed {
		t.Errorf("burst of 2: %+v", got)
	}
	// Less than a day, by the moments since the first request.
	if r := got[2].RetryAfter; r <= 23*time.Hour || r > 24*time.Hour {
		t.Errorf("RetryAfter %v, want just under 24h", r)
	}
	if res, _ := store.Allow(ctx, "other", q); !res.Allowed {
		t.Error("another key was refused")
	}
	// Both used: under a quota of burst 3, one is left.
	grown := ratelimit.Quota{Rate: ratelimit.Rate{Count: 1, Period: time.Hour}, Burst: 3}
	a, _ := store.Allow(ctx, "k", grown)
	b, _ := store.Allow(ctx, "k", grown)
	if !a.Allowed || b.Allowed {
		t.Errorf("under a grown quota: %+v then %+v, want one allowed", a, b)
	}
	srv.Stop()
	if _, err := store.Allow(ctx, "k", q); err == nil {
		t.Error("no error with Redis stopped")
	}
}

// A rate so high that a request's share is below the resolution of
// Redis' clock as the script reads it (a second's float since 2017) is
// still counted: the key's expiry is at least a second, never the zero
// Redis refuses.
func TestRedisStoreAtAVeryHighRate(t *testing.T) {
	srv := redistest.Start(t)
	store, err := ratelimit.NewRedis(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	q := ratelimit.Quota{Rate: ratelimit.Rate{Count: 1_000_000_000, Period: time.Second}, Burst: 1_000_000}
	for i := range 20 {
		res, err := store.Allow(context.Background(), "k", q)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if !res.Allowed {
			t.Fatalf("request %d refused: %+v", i, res)
		}
	}
}
