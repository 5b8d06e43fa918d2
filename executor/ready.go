package executor

import (
	"context"
	"errors"
	"fmt"

	"github.com/pgrest/caddy-pgrest/executor/dbpool"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

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

// Ready is Executor.Ready for the source's database and schemas.
func (s *SchemaSource) Ready(ctx context.Context) error {
	if s.cache.Load() == nil {
		if msg := s.loadErr.Load(); msg != nil {
			return fmt.Errorf("the schema cache is not loaded: %s", *msg)
		}
		return errors.New("the schema cache is not loaded yet")
	}
	return dbpool.Ping(ctx, s.pool)
}
