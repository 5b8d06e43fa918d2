package executor

import (
	"context"

	"github.com/jackc/pgx/v5/pgconn"
	"go.uber.org/zap"

	"github.com/pgrest/caddy-pgrest/executor/schemasource"
)

// maxPreparedPerConn bounds the statements kept prepared on one
// connection. Request shapes are few in practice; past this the set is
// dropped and rebuilt, which costs one Parse per shape.
const maxPreparedPerConn = 1000

// statementSet records which statements are prepared on one connection,
// each with its description, so that a request sends a known statement
// with Bind and Execute alone: without a Describe of the portal, the
// server builds no row description per statement and pgx decodes none.
// A connection serves one request at a time, so it needs no lock.
type statementSet struct {
	generation uint64
	statements map[string]*pgconn.StatementDescription
}

// description is the named statement's description, or nil when it is
// not prepared on the connection.
func (s *statementSet) description(name string) *pgconn.StatementDescription {
	return s.statements[name]
}

func (s *statementSet) add(sd *pgconn.StatementDescription) {
	s.statements[sd.Name] = sd
}

const preparedKey = "pgrest.prepared"

// preparedOn returns the connection's statement set. After a schema cache
// reload (a new generation) or when the set is full, the connection's
// statements are deallocated first: a changed column type could otherwise
// leave a statement whose parameter types no longer fit, and the set's
// descriptions go with them. An error means
// the connection is closed and nothing of the request has run on it.
func (e *Executor) preparedOn(ctx context.Context, pg *pgconn.PgConn) (*statementSet, error) {
	gen := schemasource.Epoch()
	s, _ := pg.CustomData()[preparedKey].(*statementSet)
	if s != nil && s.generation == gen && len(s.statements) < maxPreparedPerConn {
		return s, nil
	}
	if s != nil && len(s.statements) > 0 {
		if err := deallocate(ctx, pg, s.statements); err != nil {
			if pg.IsClosed() {
				// A connection the server closed while it sat idle
				// fails here rather than at BEGIN; it is just as
				// safe to retry.
				return nil, err
			}
			e.logger.Warn("deallocating prepared statements", zap.Error(err))
		}
	}
	s = &statementSet{generation: gen, statements: map[string]*pgconn.StatementDescription{}}
	pg.CustomData()[preparedKey] = s
	return s, nil
}

// deallocate drops the statements named, in one round trip. Only pgrest's
// own statements are named: DEALLOCATE ALL would also drop those pgx
// prepares for itself on the same connection (and whatever a pre-request
// function prepared), and the next query relying on them would fail with
// 26000 "prepared statement does not exist".
func deallocate(ctx context.Context, pg *pgconn.PgConn, names map[string]*pgconn.StatementDescription) error {
	p := pg.StartPipeline(ctx)
	for name := range names {
		p.SendDeallocate(name)
	}
	if err := p.Sync(); err != nil {
		_ = p.Close()
		return err
	}
	var firstErr error
	for range len(names) + 1 { // each Close, then the Sync
		if _, err := p.GetResults(); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if err := p.Close(); err != nil && firstErr == nil {
		firstErr = err
	}
	return firstErr
}
