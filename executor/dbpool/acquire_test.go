package dbpool_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgrest/caddy-pgrest/executor/dbpool"
	"github.com/pgrest/caddy-pgrest/tests/dbpooltest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The tests of this file take connections from a real pool on a real
// PostgreSQL, started on first use: what they check is how pgxpool and
// the pool under it (puddle) treat the context of an acquisition, which
// no stand-in would show.

var testDB = &dbpooltest.Cluster{Name: "dbpool_acquire"}

// TestMain stops the cluster a test started; most tests start none.
func TestMain(m *testing.M) { testDB.Run(m) }

// warm opens n connections of pool and leaves them idle.
func warm(t *testing.T, pool *pgxpool.Pool, n int) {
	t.Helper()
	conns := make([]*pgxpool.Conn, 0, n)
	for range n {
		c, err := pool.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Release()
	}
}

// waitLimit bounds what the tests wait for, so that a wait that would
// never end fails instead of hanging; generous for a loaded machine.
const waitLimit = 30 * time.Second

func TestAcquireIdleNeverWaits(t *testing.T) {
	pool := testDB.Pool(t, 1)
	ctx := context.Background()
	const timeout = 10 * time.Second

	t.Run("an idle connection is taken", func(t *testing.T) {
		warm(t, pool, 1)
		conn, _ := dbpool.AcquireIdle(ctx, pool, timeout)
		if conn == nil {
			t.Fatal("no connection, though one was idle")
		}
		conn.Release()
	})

	t.Run("a pool whose connections are all in use answers at once", func(t *testing.T) {
		// The connection in use is released only once the attempt has
		// answered, and the executor's own wait would last an hour: an
		// attempt that waited for either would not answer in time.
		const timeout = time.Hour
		held, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer held.Release()
		done := make(chan *pgxpool.Conn, 1)
		go func() {
			conn, _ := dbpool.AcquireIdle(ctx, pool, timeout)
			done <- conn
		}()
		select {
		case conn := <-done:
			if conn != nil {
				conn.Release()
				t.Fatal("a connection, though the only one is in use")
			}
		case <-time.After(waitLimit):
			t.Fatalf("no answer in %s: the attempt waited for the connection in use", waitLimit)
		}
	})

	t.Run("the wait the attempt gives up is the pool's own", func(t *testing.T) {
		// Past the check of idle connections (another request takes
		// the last one in between), the pool would wait for a release:
		// the context must end that wait at once.
		held, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			conn, err := pool.Acquire(&dbpool.NoWaitContext{Context: ctx})
			if conn != nil {
				conn.Release()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, dbpool.ErrWouldWait) {
				t.Errorf("err = %v, want errWouldWait", err)
			}
		case <-time.After(waitLimit):
			t.Errorf("no answer in %s: the acquisition waited for the connection in use", waitLimit)
		}
		held.Release()
	})

	t.Run("a client gone before the attempt gets no connection", func(t *testing.T) {
		warm(t, pool, 1)
		gone, cancel := context.WithCancel(ctx)
		cancel()
		conn, err := pool.Acquire(&dbpool.NoWaitContext{Context: gone})
		if conn != nil {
			conn.Release()
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})

	t.Run("an empty pool starts no connection", func(t *testing.T) {
		empty := testDB.Pool(t, 1)
		if conn, _ := dbpool.AcquireIdle(ctx, empty, timeout); conn != nil {
			conn.Release()
			t.Fatal("a connection from a pool that had none")
		}
		// The pool may have begun a connection that its BeforeConnect
		// refuses: it is gone as soon as the refusal is seen. One that
		// was dialed would stay, idle.
		for deadline := time.Now().Add(waitLimit); empty.Stat().TotalConns() != 0; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d connections opened; the bounded wait is what opens one", empty.Stat().TotalConns())
			}
		}
	})
}

func TestAcquireIdlePingsAConnectionIdleForLong(t *testing.T) {
	pool := testDB.Pool(t, 1)
	ctx := context.Background()
	const timeout = 10 * time.Second

	t.Run("a live one is pinged and taken", func(t *testing.T) {
		warm(t, pool, 1)
		first := takeAndGiveBack(t, pool)
		time.Sleep(1100 * time.Millisecond) // past pgx's second
		conn, err := dbpool.AcquireIdle(ctx, pool, timeout)
		if err != nil {
			t.Fatal(err)
		}
		if conn == nil {
			t.Fatal("no connection: the attempt gave up on the one it had to ping")
		}
		defer conn.Release()
		if conn.Conn().PgConn() != first {
			t.Fatal("another connection than the idle one")
		}
	})

	t.Run("a dead one is closed and not taken", func(t *testing.T) {
		dead := takeAndGiveBack(t, pool)
		admin := pgtest.Connect(t, testDB.Database(t))
		if _, err := admin.Exec(ctx, "select pg_terminate_backend($1)", dead.PID()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1100 * time.Millisecond)
		conn, err := dbpool.AcquireIdle(ctx, pool, timeout)
		if conn != nil {
			conn.Release()
			t.Fatal("a connection whose server process was terminated was taken")
		}
		if err != nil {
			t.Fatalf("err = %v: a failed ping is the connection's fault, and the request should wait for another", err)
		}
		if !dead.IsClosed() {
			t.Fatal("the dead connection was not closed")
		}
		if n := pool.Stat().TotalConns(); n != 0 {
			t.Fatalf("%d connections left in the pool, want the dead one gone", n)
		}
	})
}

// takeAndGiveBack takes a connection of pool and releases it at once,
// so that it sits idle from now; it returns the connection.
func takeAndGiveBack(t *testing.T, pool *pgxpool.Pool) *pgconn.PgConn {
	t.Helper()
	conn, err := pool.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	return conn.Conn().PgConn()
}

func TestAConnectionWithACancelInDoubtIsNotUsedAgain(t *testing.T) {
	pool := testDB.Pool(t, 1)
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	marked := conn.Conn().PgConn()
	marked.CustomData()[dbpool.UnsureCancelKey] = true
	conn.Release()

	conn, err = pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if conn.Conn().PgConn() == marked {
		t.Fatal("the connection whose cancel is in doubt was handed out again")
	}
	if !marked.IsClosed() {
		// Closed by the pool in the background; give it a moment.
		deadline := time.Now().Add(waitLimit)
		for !marked.IsClosed() && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if !marked.IsClosed() {
			t.Fatal("the connection whose cancel is in doubt was not closed")
		}
	}
}
