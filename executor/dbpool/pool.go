// Package dbpool makes pgrest's connection pools and takes connections
// from them: the primary's pool and each replica's, an acquisition that
// takes an idle connection without a timer and bounds a wait by
// db_pool_acquisition_timeout, the cancel of a running statement whose
// client hung up, and the classification of a failed connection attempt.
// It knows nothing of requests.
package dbpool

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Config is what identifies a connection pool. Handlers whose
// Config is equal share one pool, across config reloads too.
type Config struct {
	// URI is db_uri: a PostgreSQL URI or keyword/value string for the
	// authenticator role.
	URI string
	// MaxConns is db_pool.
	MaxConns int32
	// MaxConnLifetime is db_pool_max_lifetime and MaxConnIdleTime
	// db_pool_max_idletime; 0 keeps pgx's default.
	MaxConnLifetime time.Duration
	MaxConnIdleTime time.Duration
}

// New makes the authenticator's pool (or a replica's). It does not connect: pgrest
// starts while the database is down and answers 503 until it is up, as
// PostgREST does.
func New(ctx context.Context, pc Config) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(pc.URI)
	if err != nil {
		return nil, fmt.Errorf("parsing db_uri: %w", err)
	}
	if pc.MaxConns > 0 {
		cfg.MaxConns = pc.MaxConns
	}
	cfg.MinConns = 0
	if pc.MaxConnLifetime > 0 {
		cfg.MaxConnLifetime = pc.MaxConnLifetime
	}
	if pc.MaxConnIdleTime > 0 {
		cfg.MaxConnIdleTime = pc.MaxConnIdleTime
		// The health check is what closes idle connections: run it often
		// enough that a short idle time is kept.
		cfg.HealthCheckPeriod = min(cfg.HealthCheckPeriod, pc.MaxConnIdleTime)
	}
	// pgrest's own queries through pgx (the schema cache load, the
	// session user) prepare no named statements: a pre-request function
	// or a pooler that drops a connection's statements cannot make them
	// fail with 26000 "prepared statement does not exist". They run a few
	// times per schema cache load, so the second round trip is nothing.
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "pgrest"
	}
	// A cancelled request (a client hanging up) cancels its statement
	// and keeps its connection, rather than pgx's default of closing it.
	cfg.ConnConfig.BuildContextWatcherHandler = newStatementCanceller
	cfg.PrepareConn = usableOnAcquire
	cfg.ShouldPing = shouldPing
	cfg.BeforeConnect = refuseNoWait
	return pgxpool.NewWithConfig(ctx, cfg)
}
