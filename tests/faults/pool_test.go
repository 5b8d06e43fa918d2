package faults

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"
)

// With every pool connection held, requests wait db_pool_acquisition_timeout
// for one and then get 504 PGRST003: not sooner, and not much later.
func TestPoolExhaustionAnswers504WithinTheTimeout(t *testing.T) {
	const (
		pool    = 2
		timeout = time.Second
		waiters = 6
	)
	s := startServer(t, "db_pool 2", "db_pool_acquisition_timeout 1s")
	ready(t, s)

	holders := make(chan int, pool)
	for range pool {
		go func() {
			res, err := s.Try(nil, http.MethodPost, "/rpc/sleep", `{"seconds": 4}`)
			if err != nil {
				t.Errorf("a holder's call failed: %v", err)
				holders <- 0
				return
			}
			holders <- res.Status
		}()
	}
	if !waitFor(5*time.Second, func() bool { return authenticatorBackends(t, "active", sleepCall) == pool }) {
		t.Fatalf("the %d holders did not both get a connection", pool)
	}

	took := make([]time.Duration, waiters)
	var wg sync.WaitGroup
	for i := range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			res, err := s.Try(nil, http.MethodGet, "/writes?limit=1", "")
			took[i] = time.Since(start)
			if err != nil {
				t.Errorf("a waiter's request failed: %v", err)
				return
			}
			var e struct{ Code string }
			_ = json.Unmarshal(res.Body, &e)
			if res.Status != http.StatusGatewayTimeout || e.Code != "PGRST003" {
				t.Errorf("a waiter got %d %s, want 504 PGRST003", res.Status, res.Body)
			}
		}()
	}
	wg.Wait()
	low, high := timeout*9/10, timeout*11/10
	minTook, maxTook := took[0], took[0]
	for _, d := range took {
		minTook, maxTook = min(minTook, d), max(maxTook, d)
	}
	t.Logf("db_pool %d held; %d waiters answered 504 PGRST003 after %v to %v (db_pool_acquisition_timeout %v, allowed %v to %v)",
		pool, waiters, minTook.Round(time.Millisecond), maxTook.Round(time.Millisecond), timeout, low, high)
	if minTook < low || maxTook > high {
		t.Errorf("answers came after %v to %v, want within %v to %v", minTook, maxTook, low, high)
	}
	for range pool {
		if status := <-holders; status != http.StatusOK {
			t.Errorf("a holder got %d, want 200", status)
		}
	}
	res, err := s.Try(nil, http.MethodGet, "/writes?limit=1", "")
	if err != nil || res.Status != http.StatusOK {
		t.Fatalf("once the pool is free a read got %v %v", res, err)
	}
}
