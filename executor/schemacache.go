package executor

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"go.uber.org/zap"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/schema"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// Backoff between failed schema cache loads, as PostgREST retries.
const (
	minRetry = 500 * time.Millisecond
	maxRetry = 30 * time.Second
)

// cacheLoop loads the schema cache whenever a reload is asked for and
// retries failed loads with exponential backoff until ctx is done.
func (e *Executor) cacheLoop(ctx context.Context) {
	retry := minRetry
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.reloads:
		}
		for {
			err := e.loadSchemaCache(ctx)
			e.firstAttemptOnce.Do(func() { close(e.firstAttempt) })
			if err == nil || ctx.Err() != nil {
				retry = minRetry
				break
			}
			e.logger.Error("loading the schema cache", zap.Error(err), zap.Duration("retry_in", retry))
			select {
			case <-ctx.Done():
				return
			case <-time.After(retry):
			case <-e.reloads: // a reload request is another reason to try now
			}
			retry = min(retry*2, maxRetry)
		}
	}
}

// loadSchemaCache reads the catalog and swaps the new cache in.
func (e *Executor) loadSchemaCache(ctx context.Context) error {
	start := time.Now()
	conn, err := e.acquire(ctx)
	if err != nil {
		e.cacheErr.Store(e.cacheFailure(err))
		return err
	}
	defer conn.Release()
	c, err := schema.Load(ctx, conn, e.cfg.Schemas)
	if err != nil {
		e.cacheErr.Store(e.cacheFailure(err))
		return err
	}
	e.learnSessionUser(ctx, conn)
	e.cache.Store(c)
	schemaEpoch.Add(1)
	e.cacheErr.Store(nil)
	e.logger.Info("schema cache loaded",
		zap.Strings("schemas", e.cfg.Schemas),
		zap.Int("relations", countRelations(c)),
		zap.Int("functions", countFunctions(c)),
		zap.Duration("took", time.Since(start)))
	return nil
}

// cacheFailure is what requests are told while the cache cannot load:
// the connection error when the database is unreachable, else PGRST002.
func (e *Executor) cacheFailure(err error) *apierr.Error {
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return ae
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return apierr.ConnectionError(connectionCause(err))
	}
	return apierr.NoSchemaCache()
}

// schemaCache returns the current cache. Before the first load has been
// tried, a request waits for it (up to the pool acquisition timeout), so
// requests arriving at start-up are not refused needlessly.
func (e *Executor) schemaCache(ctx context.Context) (*schema.Cache, *apierr.Error) {
	if c := e.cache.Load(); c != nil {
		return c, nil
	}
	wait := time.NewTimer(e.cfg.PoolAcquisitionTimeout)
	defer wait.Stop()
	select {
	case <-e.firstAttempt:
	case <-wait.C:
	case <-ctx.Done():
	}
	if c := e.cache.Load(); c != nil {
		return c, nil
	}
	if ae := e.cacheErr.Load(); ae != nil {
		return nil, ae
	}
	return nil, apierr.NoSchemaCache()
}

// listen reloads the schema cache on NOTIFY <db_channel>, 'reload schema'
// (or an empty payload). It holds one connection of its own, outside the
// pool, and reconnects with backoff; after a reconnect it reloads, since
// notifications sent while it was away are lost.
func (e *Executor) listen(ctx context.Context) {
	retry := minRetry
	for ctx.Err() == nil {
		err := e.listenOnce(ctx, func() { retry = minRetry })
		if ctx.Err() != nil {
			return
		}
		e.logger.Warn("schema reload listener disconnected", zap.Error(err), zap.Duration("retry_in", retry))
		select {
		case <-ctx.Done():
			return
		case <-time.After(retry):
		}
		retry = min(retry*2, maxRetry)
		e.ReloadSchemaCache()
	}
}

func (e *Executor) listenOnce(ctx context.Context, connected func()) error {
	conn, err := pgx.ConnectConfig(ctx, e.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, sqltext.Fmt("listen %s", sqltext.Ident(e.cfg.Channel)).String()); err != nil {
		return err
	}
	connected()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		switch n.Payload {
		case "", "reload schema":
			e.logger.Info("schema cache reload requested", zap.String("channel", n.Channel))
			e.ReloadSchemaCache()
		case "reload config":
			e.logger.Info("configuration reloads come from Caddy; ignoring", zap.String("payload", n.Payload))
		}
	}
}

func countRelations(c *schema.Cache) int {
	n := 0
	for _, m := range c.Relations {
		n += len(m)
	}
	return n
}

func countFunctions(c *schema.Cache) int {
	n := 0
	for _, m := range c.Functions {
		for _, fs := range m {
			n += len(fs)
		}
	}
	return n
}
