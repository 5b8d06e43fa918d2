package executor

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgrest/caddy-pgrest/executor/dbpool"
)

// acquireWithin takes a connection of pool (the primary's or a replica's)
// within db_pool_acquisition_timeout (dbpool.Acquire) and tells the
// observer of the wait; primary says a wait that ends in the timeout
// counts as a pool timeout (a replica's does not: its request goes on to
// the primary).
func (e *Executor) acquireWithin(ctx context.Context, pool *pgxpool.Pool, primary bool) (*pgxpool.Conn, error) {
	if e.cfg.Observer != nil {
		e.cfg.Observer.AcquireStarted()
	}
	conn, err := dbpool.Acquire(ctx, pool, e.cfg.PoolAcquisitionTimeout)
	if e.cfg.Observer != nil {
		e.cfg.Observer.AcquireEnded(primary && err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded))
	}
	return conn, err
}
