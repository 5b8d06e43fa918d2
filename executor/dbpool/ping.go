package dbpool

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// readyPingTimeout bounds the database check of a readiness probe; probes
// (a load balancer's, Kubernetes') time out after a second or a few.
const readyPingTimeout = 2 * time.Second

// Ping checks the database answers on a connection of pool, for a
// readiness probe. A pool whose every connection is busy is a database
// that answers requests, not one that is down: a probe must not take a
// loaded node out of service.
func Ping(ctx context.Context, pool *pgxpool.Pool) error {
	ctx, cancel := context.WithTimeout(ctx, readyPingTimeout)
	defer cancel()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && Full(pool) {
			return nil
		}
		return fmt.Errorf("the database does not answer: %w", err)
	}
	defer conn.Release()
	if err := conn.Ping(ctx); err != nil {
		return fmt.Errorf("the database does not answer: %w", err)
	}
	return nil
}

// Full says every connection pool may open is in use.
func Full(pool *pgxpool.Pool) bool {
	st := pool.Stat()
	return st.AcquiredConns() >= st.MaxConns()
}
