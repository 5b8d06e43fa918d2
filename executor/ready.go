package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// readyPingTimeout bounds the database check of a readiness probe; probes
// (a load balancer's, Kubernetes') time out after a second or a few.
const readyPingTimeout = 2 * time.Second

// Ready reports whether requests can be served, with PostgREST's meaning of
// /ready: the schema cache is loaded and the database answers. It returns
// nil when ready, else why not.
func (e *Executor) Ready(ctx context.Context) error {
	return e.source.Ready(ctx)
}

// SchemaCache is the schema cache requests are planned against now; nil
// until the first load.
func (e *Executor) SchemaCache() *schemacache.Cache {
	return e.source.cache.Load()
}

// WaitSchemaCache is the schema cache as a request's is found: while
// there is none yet, it waits for the first load as the request path
// does (up to db_pool_acquisition_timeout), and a wait in vain gives the
// error the request path answers with (503 PGRST002, or the connection
// error). Parts of the request that come before the executor and need
// what the cache holds, such as the roles' rate limit quotas, use it so
// that the first requests after start are treated as the later ones.
func (e *Executor) WaitSchemaCache(ctx context.Context) (*schemacache.Cache, *apierr.Error) {
	return e.schemaCache(ctx)
}

// Ready is Executor.Ready for the source's database and schemas.
func (s *SchemaSource) Ready(ctx context.Context) error {
	if s.cache.Load() == nil {
		if msg := s.loadErr.Load(); msg != nil {
			return fmt.Errorf("the schema cache is not loaded: %s", *msg)
		}
		return errors.New("the schema cache is not loaded yet")
	}
	return pingDatabase(ctx, s.pool)
}

// pingDatabase checks the database answers on a pool connection. A pool
// whose every connection is busy is a database that answers requests, not
// one that is down: a probe must not take a loaded node out of service.
func pingDatabase(ctx context.Context, pool *pgxpool.Pool) error {
	ctx, cancel := context.WithTimeout(ctx, readyPingTimeout)
	defer cancel()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		st := pool.Stat()
		if errors.Is(err, context.DeadlineExceeded) && st.AcquiredConns() >= st.MaxConns() {
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
