package executor

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// sessionReset undoes, once a request's transaction has ended, whatever
// the request left on its connection at session level, so that nothing of
// it reaches the next request on that connection, whoever sends it.
//
// pgrest sets its own settings transaction-locally, but a function the
// request calls may not: `SET statement_timeout = '1ms'` without LOCAL,
// set_config(…, false), `SET ROLE`, a temporary table, a WITH HOLD cursor,
// LISTEN, a session-level advisory lock and a sequence's currval all
// outlive the transaction, and PostgreSQL keeps them for whoever runs on
// the connection next. These are DISCARD ALL's steps less DEALLOCATE ALL
// and DISCARD PLANS, which would drop the statements pgrest prepared and
// make every request prepare them again. SET SESSION AUTHORIZATION DEFAULT
// comes before RESET ALL because RESET ALL leaves the role alone; any role
// may run it.
//
// They run after COMMIT or ROLLBACK in the same pipeline, so they cost no
// round trip, and before the Sync, so that behind PgBouncer in transaction
// mode they reach the server connection the transaction used. On a hot
// standby each of them is allowed (UNLISTEN too: PostgreSQL refuses LISTEN
// there, not UNLISTEN).
//
// One SELECT that releases advisory locks and looks for what CLOSE ALL,
// UNLISTEN * and DISCARD TEMP undo (a holdable cursor in pg_cursors, a
// channel in pg_listening_channels(), pg_my_temp_schema() <> 0), closing
// the connection when it finds one, would send four statements instead of
// seven, but costs PostgreSQL more than the four it replaces: each of the
// three utility statements costs the backend about 3 µs, and the SELECT,
// with its set-returning functions, about 14 µs (measured: 44.5 µs per
// transaction against 39.2 µs, the Go side the same). So the reset stays
// these seven cheap statements.
//
// Statements a function prepares with SQL's PREPARE are left: they share
// their namespace with pgrest's own prepared statements, which DEALLOCATE
// ALL would drop too (see SECURITY.md).
var sessionReset = [...]string{
	"CLOSE ALL",
	"SET SESSION AUTHORIZATION DEFAULT",
	"RESET ALL",
	"UNLISTEN *",
	"SELECT pg_catalog.pg_advisory_unlock_all()",
	"DISCARD TEMP",
	"DISCARD SEQUENCES",
}

// sessionResetScript is sessionReset as one simple-protocol query, sent
// with the end of a transaction that was not pipelined, and after a
// failure, when the pipelined reset was skipped.
var sessionResetScript = strings.Join(sessionReset[:], "; ")

// ReleaseReset gives back to its pool a connection that code outside the
// executor (the realtime authorization checks) ran statements on as a
// request's role, as the executor gives back its own: a transaction left
// open is rolled back and the session reset runs, in one round trip, so
// that what a policy or a function the check called left at session level
// (a setting, SET ROLE, a temporary table, LISTEN, an advisory lock,
// currval) reaches nobody who takes the connection next. A connection
// whose reset fails is closed, and the pool drops it on release.
func ReleaseReset(ctx context.Context, conn *pgxpool.Conn) {
	cleanUpAfterFailure(ctx, conn.Conn().PgConn())
	conn.Release()
}

// InRolledBackTx runs fn in a transaction of a connection of pool, rolls
// it back whatever fn did, and gives the connection back with
// ReleaseReset (the ROLLBACK goes with the reset, in one round trip): a
// rollback undoes settings, SET ROLE and temporary tables, but not an
// advisory lock or a sequence's currval that a policy, a function or a
// type's input function called in it took.
func InRolledBackTx(ctx context.Context, pool *pgxpool.Pool, fn func(pgx.Tx) error) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer ReleaseReset(ctx, conn)
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	return fn(tx)
}

// immediateConstraints checks, before a transaction that did its work is
// rolled back, the constraints it deferred (DEFERRABLE INITIALLY DEFERRED,
// or SET CONSTRAINTS … DEFERRED in a function): a violation is then the
// error it would have been at COMMIT, as PostgREST answers it, rather than
// vanishing with the rollback. Allowed in a read-only transaction and on a
// hot standby: it changes only the transaction's own state.
const immediateConstraints = "SET CONSTRAINTS ALL IMMEDIATE"

// txEnd is a transaction's end as the pipeline sends it: COMMIT, or SET
// CONSTRAINTS ALL IMMEDIATE and ROLLBACK, then the session reset.
type txEnd struct {
	// rollback says the constraints check was sent, before ROLLBACK.
	rollback    bool
	constraints txControl
	end         txControl
	reset       [len(sessionReset)]txControl
}

// sendTxEnd sends the end of a transaction that commits, or else rolls
// back, and the session reset.
func sendTxEnd(p *pgconn.Pipeline, prepared *statementSet, commit bool) txEnd {
	var t txEnd
	if commit {
		t.end = sendTxControl(p, prepared, "COMMIT")
	} else {
		t.rollback = true
		t.constraints = sendTxControl(p, prepared, immediateConstraints)
		t.end = sendTxControl(p, prepared, "ROLLBACK")
	}
	for i, sql := range sessionReset {
		t.reset[i] = sendTxControl(p, prepared, sql)
	}
	return t
}

// read reads what sendTxEnd sent. A failed check of deferred constraints
// or a failed end is returned as it is (the server skipped what followed
// it); a failed reset, after a good end, as a *sessionResetError.
func (t txEnd) read(p *pgconn.Pipeline, prepared *statementSet) error {
	if t.rollback {
		if err := t.constraints.read(p, prepared); err != nil {
			return err
		}
	}
	if err := t.end.read(p, prepared); err != nil {
		return err
	}
	for _, c := range t.reset {
		if err := c.read(p, prepared); err != nil {
			return &sessionResetError{err}
		}
	}
	return nil
}

// sessionResetError is a session reset that failed after the transaction
// ended as it should: the request's answer stands, but its connection may
// still hold something of it, so the connection is closed instead of
// going back to the pool.
type sessionResetError struct{ err error }

func (e *sessionResetError) Error() string { return "resetting the session: " + e.err.Error() }
func (e *sessionResetError) Unwrap() error { return e.err }
