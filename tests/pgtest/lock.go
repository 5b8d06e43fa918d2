package pgtest

import (
	"context"
	"sync"
	"testing"
	"time"
)

// HoldLock takes the advisory lock key at session level on a connection
// of its own to dsn, and returns what releases it (run again when t
// ends, to no effect). A call of a fixture function that waits for the
// lock (select 1 from pg_advisory_xact_lock_shared(key)) holds its pool
// connection until then: a test decides when a hold ends, instead of
// sleeping for a time that a loaded machine may outlast.
func HoldLock(t testing.TB, dsn string, key int64) (release func()) {
	t.Helper()
	conn := Connect(t, dsn)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := conn.Exec(ctx, "select pg_advisory_lock($1)", key); err != nil {
		t.Fatalf("pgtest: taking advisory lock %d: %v", key, err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if _, err := conn.Exec(ctx, "select pg_advisory_unlock($1)", key); err != nil {
				t.Errorf("pgtest: releasing advisory lock %d: %v", key, err)
			}
		})
	}
	t.Cleanup(release)
	return release
}

// WaitForLockWaiters waits, up to a minute, until at least n sessions of
// dsn's database wait for an advisory lock: the calls that a HoldLock
// keeps holding their connections. A hold shows there only once its
// statement runs, after its request took its pool connection.
func WaitForLockWaiters(t testing.TB, dsn string, n int) {
	t.Helper()
	conn := Connect(t, dsn)
	const waiting = `select count(*) from pg_stat_activity
		where datname = current_database() and wait_event_type = 'Lock' and wait_event = 'advisory'`
	var got int
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := conn.QueryRow(ctx, waiting).Scan(&got)
		cancel()
		if err != nil {
			t.Fatalf("pgtest: counting the sessions waiting for an advisory lock: %v", err)
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pgtest: %d sessions wait for an advisory lock after a minute, want %d", got, n)
		}
	}
}
