package executor

import (
	"context"

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
	return e.source.Cache()
}
