package dbpool

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Acquire takes a connection of pool within timeout
// (db_pool_acquisition_timeout).
//
// A connection that sits idle is taken without a timer: bounding a wait
// costs a context, a timer and a clock read (about two microseconds and
// five allocations on a one-row read), which only a wait needs. Only when
// no connection is idle, or another request took it first, does the
// caller wait, for at most the timeout.
func Acquire(ctx context.Context, pool *pgxpool.Pool, timeout time.Duration) (*pgxpool.Conn, error) {
	conn, err := acquireIdle(ctx, pool, timeout)
	if conn == nil && err == nil {
		actx, cancel := context.WithTimeout(ctx, timeout)
		conn, err = pool.Acquire(actx)
		cancel()
	}
	return conn, err
}

// acquireIdle takes an idle connection of pool without waiting. Neither
// a connection nor an error means there was none to take: the caller
// waits. When no connection is idle the pool would start connecting a
// new one, whose failure (a database that is down) would go to no one,
// and the wait that follows would connect again: the pool's BeforeConnect
// (refuseNoWait) refuses that connection before it dials. Asking the pool
// first whether a connection is idle (Stat) would cost every request a
// lock on the pool and two allocations.
//
// A connection idle for long is pinged before use (see shouldPing). The
// pool would ping it in a goroutine and wait for the answer, which the
// attempt cannot do: the ping is done here instead, bounded by the
// acquisition timeout, with the pool's outcomes: a connection that fails
// it is closed and the request waits for another; a ping that outlasts
// the timeout, or whose client went away, ends the acquisition with that
// error.
func acquireIdle(ctx context.Context, pool *pgxpool.Pool, timeout time.Duration) (*pgxpool.Conn, error) {
	nctx := &noWaitContext{Context: ctx}
	conn, err := pool.Acquire(nctx)
	if err != nil {
		// Whatever it was (another request took the connection, the
		// pool is closing, the client went away), the bounded wait
		// meets it again and answers it as it always has.
		return nil, nil
	}
	if !nctx.pingDue {
		return conn, nil
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := conn.Ping(pctx); err != nil {
		if pctx.Err() != nil {
			// The connection is not at fault: back to the pool, which
			// drops it if the interrupted ping left it unusable.
			conn.Release()
			return nil, pctx.Err()
		}
		closeConn(conn.Hijack())
		return nil, nil
	}
	return conn, nil
}

// closeConn closes a connection taken out of its pool.
func closeConn(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = c.Close(ctx)
}

// shouldPing is the pool's ShouldPing: pgx's own rule (a connection idle
// for more than a second is pinged before use), except that for an
// attempt that must not wait it notes the ping for acquireIdle to do.
func shouldPing(ctx context.Context, p pgxpool.ShouldPingParams) bool {
	due := p.IdleDuration > time.Second
	if nctx, ok := ctx.(*noWaitContext); ok && due {
		nctx.pingDue = true
		return false
	}
	return due
}

// errWouldWait is the error of an acquisition that would have had to wait.
var errWouldWait = errors.New("no idle connection")

// noWaitContext makes pgxpool's Acquire give up instead of waiting. The
// pool (puddle) looks at the context's Done channel once, without
// blocking, before it takes an idle connection; anywhere it would wait
// (for a connection to be released, for a new one to connect) it asks
// for Done again and selects on it. So the first Done is the request's
// own, and every later one is closed: an idle connection is taken as it
// would be with any context, and a wait ends at once with errWouldWait.
// This bends the rule that Done always returns the same channel, which
// is why the context is used for this one call and nothing else;
// TestAcquireIdleNeverWaits holds the pool to the behaviour it relies on.
type noWaitContext struct {
	context.Context
	calls atomic.Int32
	// pingDue says the connection taken has been idle long enough to be
	// pinged first (shouldPing); only the acquiring goroutine sets it.
	pingDue bool
}

// closedDone is the Done channel of a context whose wait is over.
var closedDone = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func (c *noWaitContext) Done() <-chan struct{} {
	if c.calls.Add(1) == 1 {
		return c.Context.Done()
	}
	return closedDone
}

// noWaitKey is the key under which a noWaitContext answers Value with
// itself, for refuseNoWait.
type noWaitKey struct{}

// Value lets refuseNoWait tell the no-wait attempt: the pool hands the
// connection it starts a context whose values are the acquisition's.
func (c *noWaitContext) Value(key any) any {
	if key == (noWaitKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// refuseNoWait is the pool's BeforeConnect: a new connection started for
// an attempt that must not wait is not dialed (see acquireIdle).
func refuseNoWait(ctx context.Context, _ *pgx.ConnConfig) error {
	if ctx.Value(noWaitKey{}) != nil {
		return errWouldWait
	}
	return nil
}

func (c *noWaitContext) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	if c.calls.Load() > 1 {
		return errWouldWait
	}
	return nil
}
