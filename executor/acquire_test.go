package executor

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/tests/dbpooltest"
)

// The tests of this file take connections from a real pool on a real
// PostgreSQL, started on first use; how the pool is acquired from is
// tested in dbpool, what a request makes of it here.

var testDB = &dbpooltest.Cluster{Name: "executor_acquire"}

// TestMain stops the cluster a test started; most tests start none.
func TestMain(m *testing.M) { testDB.Run(m) }

// countingObserver counts the acquisitions it is told of.
type countingObserver struct {
	mu                      sync.Mutex
	started, ended, timeout int
}

func (o *countingObserver) SchemaCacheLoaded(time.Duration, error) {}
func (o *countingObserver) AcquireStarted()                        { o.mu.Lock(); o.started++; o.mu.Unlock() }
func (o *countingObserver) AcquireEnded(timedOut bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ended++
	if timedOut {
		o.timeout++
	}
}

// While the only connection is in use, an acquisition gives up with
// PGRST003, which only the end of its db_pool_acquisition_timeout gives
// (the observer is told it timed out): it waited the timeout, and no
// longer, since the connection is released only after it gave up.
func TestAcquireWaitsAtMostTheAcquisitionTimeout(t *testing.T) {
	pool := testDB.Pool(t, 1)
	ctx := context.Background()
	obs := &countingObserver{}
	e := &Executor{pool: pool, cfg: Config{PoolAcquisitionTimeout: 300 * time.Millisecond, Observer: obs}}

	conn, err := e.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.acquire(ctx)
	var aerr *apierr.Error
	if !errors.As(err, &aerr) || aerr.Code != apierr.AcquisitionTimeout().Code {
		t.Fatalf("err = %v, want %s", err, apierr.AcquisitionTimeout().Code)
	}
	conn.Release()

	// The connection just released is idle: taken without a wait.
	conn, err = e.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn.Release()
	if obs.started != 3 || obs.ended != 3 || obs.timeout != 1 {
		t.Fatalf("observer: %d started, %d ended, %d timed out; want 3, 3, 1", obs.started, obs.ended, obs.timeout)
	}
}
