// Package executor serves one authenticated request against PostgreSQL:
// it parses the request, plans it against the schema cache, generates SQL
// and runs everything in one role-scoped transaction, writing the response
// or a contract error. It knows nothing about Caddy.
package executor

import (
	"context"
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"

	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// Executor serves requests for one handler configuration.
type Executor struct {
	cfg    Config
	pool   *pgxpool.Pool
	logger *zap.Logger
}

// New makes an Executor over pool, which the caller owns. It does not
// touch the database; call Start to begin loading the schema cache.
func New(pool *pgxpool.Pool, cfg Config, logger *zap.Logger) (*Executor, error) {
	if logger == nil {
		logger = zap.NewNop()
	}
	return &Executor{cfg: cfg, pool: pool, logger: logger}, nil
}

// Start begins the background work (schema cache loading, the reload
// listener). It all ends when ctx is done.
func (e *Executor) Start(ctx context.Context) {}

// ReloadSchemaCache rebuilds the schema cache in the background.
func (e *Executor) ReloadSchemaCache() {}

// Serve answers r as identity id.
func (e *Executor) Serve(w http.ResponseWriter, r *http.Request, id jwtauth.Identity) {
	w.WriteHeader(http.StatusNotImplemented)
}
