package executor

import (
	"go.uber.org/zap"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/dbpool"
)

// connectionFailure is the 503 PGRST000 a client gets when the database
// cannot be reached: the full cause goes to the log, the client gets one
// of a few fixed phrases (dbpool.ConnectionCause).
func (e *Executor) connectionFailure(err error) *apierr.Error {
	e.logger.Error("cannot connect to the database", zap.Error(err))
	return apierr.ConnectionError(dbpool.ConnectionCause(err))
}

// clientFailure is the 503 PGRST001 for a connection that broke some other
// way; its text (addresses, pgx internals) goes to the log only.
func (e *Executor) clientFailure(err error) *apierr.Error {
	e.logger.Warn("database client error", zap.Error(err))
	return apierr.ClientError("")
}
