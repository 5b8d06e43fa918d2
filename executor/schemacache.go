package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// schemaCache returns the current cache, or why there is none. While
// there is none, the request waits (up to the pool acquisition timeout)
// for a load attempt it triggers, so requests arriving at start-up or
// just as the database comes back are not refused needlessly.
func (e *Executor) schemaCache(ctx context.Context) (*schemacache.Cache, *apierr.Error) {
	return e.source.Current(ctx, e.cfg.PoolAcquisitionTimeout)
}

// Backoff between reconnects of the reload listener, as between failed
// schema cache loads (see schemasource).
const (
	listenMinRetry = 250 * time.Millisecond
	listenMaxRetry = time.Second
)

// listen reloads the schema cache on NOTIFY <db_channel>, 'reload schema'
// (or an empty payload). It holds one connection of its own, outside the
// pool, and reconnects with backoff; once it listens again after a failed
// attempt (a lost connection, or a database down at start) it reloads,
// since notifications sent while it was away are lost. The reload comes
// after LISTEN, not before the attempt to connect: a database that came
// back between the two would otherwise be listened to with the reload
// missed, and the in-database configuration never read.
func (e *Executor) listen(ctx context.Context) {
	retry := listenMinRetry
	away := false
	for ctx.Err() == nil {
		err := e.listenOnce(ctx, func() {
			retry = listenMinRetry
			if away {
				away = false
				e.reloadAfterReconnect()
			}
		})
		away = true
		if ctx.Err() != nil {
			return
		}
		if e.cfg.NoAutomaticRecovery {
			e.logger.Error("schema reload listener disconnected; db_pool_automatic_recovery is off, not reconnecting", zap.Error(err))
			return
		}
		e.logger.Warn("schema reload listener disconnected", zap.Error(err), zap.Duration("retry_in", retry))
		select {
		case <-ctx.Done():
			return
		case <-time.After(retry):
		}
		retry = min(retry*2, listenMaxRetry)
	}
}

func (e *Executor) listenOnce(ctx context.Context, connected func()) error {
	cfg := e.pool.Config().ConnConfig.Copy()
	if e.cfg.ChannelURI != "" {
		var err error
		if cfg, err = pgx.ParseConfig(e.cfg.ChannelURI); err != nil {
			return fmt.Errorf("parsing db_channel_uri: %w", err)
		}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
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
			e.notifiedReloadSchema()
		case "reload config":
			if e.cfg.OnReloadConfig == nil {
				e.logger.Info("no in-database configuration to reload; ignoring", zap.String("payload", n.Payload))
				continue
			}
			e.logger.Info("configuration reload requested", zap.String("channel", n.Channel))
			e.cfg.OnReloadConfig()
		}
	}
}

// notifiedReloadSchema reloads the schema cache the handler serves now.
func (e *Executor) notifiedReloadSchema() {
	if e.cfg.OnReloadSchema != nil {
		e.cfg.OnReloadSchema()
		return
	}
	e.ReloadSchemaCache()
}

// reloadAfterReconnect catches up on what notifications sent while the
// listener was away would have asked for: PostgREST re-reads its
// in-database configuration and schema cache after a reconnect.
func (e *Executor) reloadAfterReconnect() {
	if e.cfg.OnReloadConfig != nil {
		e.cfg.OnReloadConfig()
	}
	e.notifiedReloadSchema()
}
