package executor

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// PoolConfig is what identifies a connection pool. Handlers whose
// PoolConfig is equal share one pool, across config reloads too.
type PoolConfig struct {
	// URI is db_uri: a PostgreSQL URI or keyword/value string for the
	// authenticator role.
	URI string
	// MaxConns is db_pool.
	MaxConns int32
}

// NewPool makes the authenticator's pool. It does not connect: pgrest
// starts while the database is down and answers 503 until it is up, as
// PostgREST does.
func NewPool(ctx context.Context, pc PoolConfig) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(pc.URI)
	if err != nil {
		return nil, fmt.Errorf("parsing db_uri: %w", err)
	}
	if pc.MaxConns > 0 {
		cfg.MaxConns = pc.MaxConns
	}
	cfg.MinConns = 0
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "pgrest"
	}
	// A cancelled request (a client hanging up) cancels its statement
	// and keeps its connection, rather than pgx's default of closing it.
	cfg.ConnConfig.BuildContextWatcherHandler = newStatementCanceller
	cfg.AfterRelease = keepAfterRelease
	return pgxpool.NewWithConfig(ctx, cfg)
}
