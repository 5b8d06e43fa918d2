package executor

import (
	"context"

	apierr "github.com/pgrest/caddy-pgrest/errors"
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
