package faults

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// With every pool connection held, requests wait db_pool_acquisition_timeout
// for one and then get 504 PGRST003 while the pool is still held: PGRST003
// is the end of the acquisition's deadline, so each waited the timeout,
// and the holders are released only after the last 504. Once the pool is
// free, a read succeeds. How close to the timeout the answers come is a
// wall-clock figure, not this test's.
func TestPoolExhaustionAnswers504AfterTheTimeout(t *testing.T) {
	const (
		pool    = 2
		waiters = 6
		lockKey = 3
	)
	s := startServer(t, "db_pool 2", "db_pool_acquisition_timeout 1s")
	ready(t, s)

	release, holders := pgresttest.HoldConnections(t, s, db.SuperDSN, "wait_for_lock", lockKey, pool)

	var wg sync.WaitGroup
	for range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.Try(nil, http.MethodGet, "/writes?limit=1", "")
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
	if n := len(holders); n > 0 {
		t.Errorf("%d holders were answered before the lock was released: the pool was not held", n)
	}
	release()
	for range pool {
		if res := <-holders; res != nil && res.Status != http.StatusOK {
			t.Errorf("a holder got %d %s, want 200", res.Status, res.Body)
		}
	}
	res, err := s.Try(nil, http.MethodGet, "/writes?limit=1", "")
	if err != nil || res.Status != http.StatusOK {
		t.Fatalf("once the pool is free a read got %v %v", res, err)
	}
}
