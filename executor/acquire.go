package executor

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"
)

// acquireWithin takes a connection of pool (the primary's or a replica's)
// within db_pool_acquisition_timeout and tells the observer of the wait;
// primary says a wait that ends in the timeout counts as a pool timeout
// (a replica's does not: its request goes on to the primary).
//
// A connection that sits idle is taken without a timer: bounding a wait
// costs a context, a timer and a clock read (about two microseconds and
// five allocations on a one-row read), which only a wait needs. Only when
// no connection is idle, or another request took it first, does the
// request wait, for at most the timeout, as it always did.
func (e *Executor) acquireWithin(ctx context.Context, pool *pgxpool.Pool, primary bool) (*pgxpool.Conn, error) {
	if e.cfg.Observer != nil {
		e.cfg.Observer.AcquireStarted()
	}
	conn := acquireIdle(ctx, pool)
	var err error
	if conn == nil {
		actx, cancel := context.WithTimeout(ctx, e.cfg.PoolAcquisitionTimeout)
		conn, err = pool.Acquire(actx)
		cancel()
	}
	if e.cfg.Observer != nil {
		e.cfg.Observer.AcquireEnded(primary && err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded))
	}
	return conn, err
}

// acquireIdle takes an idle connection of pool without waiting, or returns
// nil. It asks only when the pool has an idle connection: when none is,
// the pool would start connecting a new one, and that connection's
// failure (a database that is down) would go to no one, and the wait that
// follows would connect again.
func acquireIdle(ctx context.Context, pool *pgxpool.Pool) *pgxpool.Conn {
	if pool.Stat().IdleConns() == 0 {
		return nil
	}
	conn, err := pool.Acquire(&noWaitContext{Context: ctx})
	if err != nil {
		// Whatever it was (another request took the connection, the
		// pool is closing, the client went away), the bounded wait
		// meets it again and answers it as it always has.
		return nil
	}
	return conn
}

// errWouldWait is the error of an acquisition that would have had to wait.
var errWouldWait = errors.New("no idle connection")

// noWaitContext makes pgxpool's Acquire give up instead of waiting. The
// pool (puddle) looks at the context's Done channel once, without
// blocking, before it takes an idle connection; anywhere it would wait
// (for a connection to be released, for a new one to connect, for a
// ping of a connection idle for long) it asks for Done again and selects
// on it. So the first Done is the request's own, and every later one is
// closed: an idle connection is taken as it would be with any context,
// and a wait ends at once with errWouldWait. This bends the rule that
// Done always returns the same channel, which is why the context is used
// for this one call and nothing else; TestAcquireIdleNeverWaits holds the
// pool to the behaviour it relies on.
type noWaitContext struct {
	context.Context
	calls atomic.Int32
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

func (c *noWaitContext) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	if c.calls.Load() > 1 {
		return errWouldWait
	}
	return nil
}
