package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"go.uber.org/zap"

	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
)

// txSpec is one request's transaction: the settings, the pre-request call
// and the main statement, run in that order after BEGIN.
type txSpec struct {
	// statements run in order; the last one is the main statement, whose
	// rows are returned. The first switches to role; every later one runs
	// as role.
	statements []sqlgen.Statement
	// role is the role the request runs as. Statements after the first
	// are prepared per role (see statementName).
	role string
	// decided is true when commit-or-rollback is known before the main
	// statement runs, or is left to the guard (see txSpecFor): the end is
	// then pipelined with the rest and the whole transaction takes one
	// round trip.
	decided bool
	commit  bool
	// readOnly, next to decided and commit, and continued and costLimit
	// after them share a word: txStorage stays in its size class.
	readOnly bool
	// continued marks the rest of a transaction already begun: no BEGIN
	// is sent, and the first statement runs as role like every other.
	continued bool
	// costLimit, when more than 0, is the role's query cost limit: the
	// main statement's EXPLAIN runs first (see costguard.go). 32 bits
	// hold any limit db_max_cost accepts.
	costLimit uint32
	// stream, when set, reads the main statement's rows (a streamed read,
	// see stream.go); when it is left pending, the transaction's end is
	// left to it.
	stream *rowStream
	// guard, when set, runs after the main statement and raises an error
	// when the main result fails the request's checks (see guard.go). A
	// Sync follows it and the end, COMMIT, comes after the Sync: when the
	// guard (or any statement) failed, the server skipped to the Sync and
	// the COMMIT of the failed transaction rolls it back. Either way the
	// transaction ends in the one round trip.
	guard *sqlgen.Statement
}

// sent are the statements the pipeline sends: the request's and the
// guard, when there is one.
func (spec *txSpec) sent() []sqlgen.Statement {
	if spec.guard == nil {
		return spec.statements
	}
	return append(spec.statements[:len(spec.statements):len(spec.statements)], *spec.guard)
}

// txResult is what one statement returned.
type txResult struct {
	rows [][][]byte
}

// txDecision looks at the main statement's result and says whether to
// commit; an error rolls back and is returned to the client.
type txDecision func(*txResult) (commit bool, err error)

const (
	beginReadWrite = "BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE"
	beginReadOnly  = "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY"
)

// run executes spec on pg. The statements are pipelined: BEGIN, every
// statement, the guard and, when decided, COMMIT or ROLLBACK and the
// session reset (session_reset.go) go in one round trip. Otherwise decide
// is called with the main result and the end and the reset are sent in a
// second round trip. Every request, failed or not, leaves the connection
// idle with its session reset, or closed. A failed guard
// returns the results with its error: the main result says which check
// failed.
func (e *Executor) run(ctx context.Context, pg *pgconn.PgConn, spec *txSpec, decide txDecision) ([]*txResult, error) {
	var before []*txResult
	if spec.costLimit > 0 {
		var err error
		if before, spec, err = e.costChecked(ctx, pg, spec); err != nil {
			return nil, err
		}
	}
	res, err := e.pipeline(ctx, pg, spec)
	res = withBefore(before, res)
	if err == nil && spec.stream.pending() {
		spec.stream.then(func(err error) error { return e.settle(ctx, pg, err) })
		return res, nil
	}
	if err = e.settle(ctx, pg, err); err != nil || spec.decided {
		return res, err
	}
	commit := true
	if decide != nil {
		commit, err = decide(res[len(res)-1])
	}
	end := "ROLLBACK; "
	if commit && err == nil {
		end = "COMMIT; "
	}
	// One simple query: the end, then the session reset.
	results, execErr := pg.Exec(ctx, end+sessionResetScript).ReadAll()
	switch {
	case execErr == nil:
	case len(results) > 0 && results[0].Err == nil:
		// The transaction ended; the reset after it failed.
		e.closeUnreset(ctx, pg, &sessionResetError{execErr})
	default:
		cleanUpAfterFailure(ctx, pg)
		if err == nil {
			err = execErr
		}
	}
	return res, err
}

// settle leaves pg clean after a pipeline that returned err: a failed
// session reset closes the connection (the request's answer stands), a
// failure the pipeline did not clean up after is cleaned up after. It
// returns the request's error.
func (e *Executor) settle(ctx context.Context, pg *pgconn.PgConn, err error) error {
	if err == nil {
		// Before the errors.As targets below, which escape to the heap:
		// two allocations a request that went well need not make.
		return nil
	}
	var resetErr *sessionResetError
	if errors.As(err, &resetErr) {
		e.closeUnreset(ctx, pg, resetErr)
		return nil
	}
	var cleanFailure *failedButReset
	if errors.As(err, &cleanFailure) {
		return cleanFailure.err
	}
	if err != nil {
		cleanUpAfterFailure(ctx, pg)
	}
	return err
}

// closeUnreset closes a connection whose session reset failed after its
// transaction ended: what the request left on it must not reach the
// next one.
func (e *Executor) closeUnreset(ctx context.Context, pg *pgconn.PgConn, err *sessionResetError) {
	e.logger.Warn("closing a connection whose session could not be reset", zap.Error(err))
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	defer cancel()
	_ = pg.Close(ctx)
}

// pipeline sends the transaction's statements and reads their results.
func (e *Executor) pipeline(ctx context.Context, pg *pgconn.PgConn, spec *txSpec) ([]*txResult, error) {
	var prepared *statementSet
	if e.cfg.PreparedStatements {
		var err error
		if prepared, err = e.preparedOn(ctx, pg); err != nil {
			return nil, &beginError{err}
		}
	}
	p := pg.StartPipeline(ctx)

	begin := beginReadWrite
	if spec.readOnly {
		begin = beginReadOnly
	}
	var beginSent txControl
	if !spec.continued {
		beginSent = sendTxControl(p, prepared, begin)
	}

	// Statements not yet prepared on this connection are prepared inside
	// the pipeline, after set_config('role', ...) has run, so that Parse
	// checks names as the request's role and not as the authenticator.
	statements := spec.sent()
	// parsed[i] names statement i when a Parse was sent for it, whose
	// answer comes first. Made at the first Parse: a connection that has
	// served the request's shape before sends none, and needs none.
	var parsed []string
	for i, st := range statements {
		if !e.cfg.PreparedStatements {
			p.SendQueryParams(st.SQL.String(), st.Args, nil, nil, nil)
			continue
		}
		planRole := spec.role
		if i == 0 && !spec.continued {
			// The settings statement runs before the switch, as the
			// authenticator, whatever the request's role.
			planRole = ""
		}
		name := cachedStatementName(planRole, st.SQL.String())
		if sendKnown(p, prepared, name, st.Args) {
			continue
		}
		p.SendPrepare(name, st.SQL.String(), nil)
		if parsed == nil {
			parsed = make([]string, len(statements))
		}
		parsed[i] = name
		// Its description comes with the Parse's answer, after this
		// Bind is sent: the first use has its portal described.
		p.SendQueryPrepared(name, st.Args, nil, nil)
	}
	if spec.guard != nil {
		// A failed guard skips to here; the COMMIT below then rolls back.
		p.SendPipelineSync()
	}
	var endSent txEnd
	if spec.decided {
		endSent = sendTxEnd(p, prepared, spec.commit)
	}
	if err := p.Sync(); err != nil {
		_ = p.Close()
		return nil, err
	}

	res, err := readPipeline(p, spec, len(statements), parsed, prepared, beginSent, endSent)
	if err == nil && spec.stream.pending() {
		spec.stream.then(func(err error) error {
			if closeErr := p.Close(); err == nil {
				return closeErr
			}
			return err
		})
		return res, nil
	}
	closeErr := p.Close()
	if err != nil {
		// A failed session reset comes with the results: the
		// transaction ended as it should (see run).
		return res, err
	}
	if closeErr != nil {
		return nil, closeErr
	}
	return res, nil
}

// readPipeline reads the results in the order pipeline sent them. The
// result of every statement is returned; the last is the main statement.
// The first, the settings statement, is read and checked but its row is
// not kept (unless it is also the last): nothing reads it. A failed guard
// returns the results with a *guardFailure. sent is how many statements
// the pipeline sent (the guard's among them); parsed is pipeline's.
func readPipeline(p *pgconn.Pipeline, spec *txSpec, sent int, parsed []string, prepared *statementSet,
	begin txControl, end txEnd) ([]*txResult, error) {
	if !spec.continued {
		if err := begin.read(p, prepared); err != nil {
			return nil, readAfterGuardedFailure(p, spec, prepared, end, &beginError{err})
		}
	}
	backing, results := newResults(len(spec.statements))
	for i := range sent {
		if parsed != nil && parsed[i] != "" {
			if err := readPrepared(p, prepared, parsed[i]); err != nil {
				return nil, readAfterGuardedFailure(p, spec, prepared, end, err)
			}
		}
		guard := i == len(results)
		var keep *txResult
		if !guard {
			results[i] = &backing[i]
			// The settings statement's row is not kept unless it is
			// also the main statement.
			if i > 0 || len(spec.statements) == 1 || spec.continued {
				keep = results[i]
			}
		}
		var err error
		if spec.stream != nil && i == len(results)-1 {
			err = readStream(p, spec.stream, keep)
		} else {
			err = readResult(p, keep)
		}
		if err != nil {
			if guard {
				return results, readAfterGuardedFailure(p, spec, prepared, end, &guardFailure{err})
			}
			return nil, readAfterGuardedFailure(p, spec, prepared, end, err)
		}
	}
	if spec.stream.pending() {
		// The rows are read later; then the rest. The closure takes a
		// copy of end: capturing the parameter would move it (some 200
		// bytes) to the heap on every request, streamed or not.
		later := end
		spec.stream.then(func(err error) error {
			if err != nil {
				return readAfterGuardedFailure(p, spec, prepared, later, err)
			}
			return readPipelineEnd(p, spec, prepared, later)
		})
		return results, nil
	}
	if err := readPipelineEnd(p, spec, prepared, end); err != nil {
		var resetErr *sessionResetError
		if errors.As(err, &resetErr) {
			return results, err
		}
		return nil, err
	}
	return results, nil
}

// fewResults is room for the results of a transaction of up to four
// statements (settings, pre-request, main statement: three at most for
// almost every request) and the pointers to them, in one allocation.
type fewResults struct {
	ptrs [4]*txResult
	vals [4]txResult
}

// newResults is room for n statements' results, and the slice of
// pointers to it that readPipeline fills and returns: one allocation for
// both when they fit in fewResults.
func newResults(n int) ([]txResult, []*txResult) {
	if n <= len(fewResults{}.ptrs) {
		b := new(fewResults)
		return b.vals[:n:n], b.ptrs[:n:n]
	}
	return make([]txResult, n), make([]*txResult, n)
}

// readPipelineEnd reads what follows the main statement: the guard's
// Sync, the end (when decided) and the last Sync. A failed session reset
// is a *sessionResetError.
func readPipelineEnd(p *pgconn.Pipeline, spec *txSpec, prepared *statementSet, end txEnd) error {
	if spec.guard != nil {
		if _, err := p.GetResults(); err != nil { // the Sync after the guard
			return err
		}
	}
	if spec.decided {
		if err := end.read(p, prepared); err != nil {
			return err
		}
	}
	_, err := p.GetResults() // the Sync
	return err
}

// readAfterGuardedFailure reads, after a statement of a guarded
// transaction failed with err before the guard's Sync, what the server
// still ran after that Sync: the transaction's end (a COMMIT of the failed
// transaction, which rolls it back) and the session reset. Its Parse,
// when one was sent, did prepare the statement on the connection, and the
// statement set must say so, or the next request would prepare it again
// and fail with 42P05. Without a guard everything after the failure was
// skipped. It returns err, as a *failedButReset when the session was
// reset: then nothing is left to clean up.
func readAfterGuardedFailure(p *pgconn.Pipeline, spec *txSpec, prepared *statementSet, end txEnd, err error) error {
	if spec.guard == nil {
		return err
	}
	if _, syncErr := p.GetResults(); syncErr != nil { // the guard's Sync
		return err
	}
	if end.read(p, prepared) != nil {
		return err
	}
	return &failedButReset{err}
}

// failedButReset is the error of a request whose transaction failed but
// still ended, and whose session was reset, in its pipeline: the
// connection is clean as it is.
type failedButReset struct{ err error }

func (e *failedButReset) Error() string { return e.err.Error() }
func (e *failedButReset) Unwrap() error { return e.err }

// readResult reads one statement's result into res, or reads it through
// when res is nil.
func readResult(p *pgconn.Pipeline, res *txResult) error {
	rr, err := nextRows(p)
	if err != nil {
		return err
	}
	for rr.NextRow() {
		if res != nil {
			res.rows = append(res.rows, copyRow(rr.Values()))
		}
	}
	_, err = rr.Close()
	return err
}

// readStream reads a streamed statement's result into stream, its first
// row into first (when not nil).
func readStream(p *pgconn.Pipeline, stream *rowStream, first *txResult) error {
	rr, err := nextRows(p)
	if err != nil {
		return err
	}
	return stream.read(rr, first)
}

// nextRows is the reader of the pipeline's next result, a statement's.
func nextRows(p *pgconn.Pipeline) (*pgconn.ResultReader, error) {
	out, err := p.GetResults()
	if err != nil {
		return nil, err
	}
	rr, ok := out.(*pgconn.ResultReader)
	if !ok {
		return nil, errors.New("pipeline: unexpected result")
	}
	return rr, nil
}

// copyRow copies a row out of the reader, which reuses its buffer for the
// next row: all its values in one allocation, NULLs kept nil.
func copyRow(vals [][]byte) [][]byte {
	size := 0
	for _, v := range vals {
		size += len(v)
	}
	buf := make([]byte, 0, size)
	row := make([][]byte, len(vals))
	for i, v := range vals {
		if v != nil {
			start := len(buf)
			buf = append(buf, v...)
			// Capped, so that appending to one value cannot overwrite
			// the next.
			row[i] = buf[start:len(buf):len(buf)]
		}
	}
	return row
}

// beginError is a failure of BEGIN itself: nothing of the request ran, so
// when the connection turned out dead (terminated by the server while idle
// in the pool) the request may be retried on another one.
type beginError struct{ err error }

func (e *beginError) Error() string { return e.err.Error() }
func (e *beginError) Unwrap() error { return e.err }

// retryable says whether err left nothing done on a connection that is
// now closed, so that running the request again is safe.
func retryable(err error, pg *pgconn.PgConn) bool {
	var be *beginError
	return errors.As(err, &be) && pg.IsClosed()
}

// cleanUpAfterFailure ends a transaction an error left open and resets
// the session, which the failure kept the pipeline from doing, so the
// connection goes back to the pool idle and clean: a rollback undoes the
// transaction's settings, but not a session-level advisory lock or a
// sequence's currval taken in it. A connection that cannot be cleaned up
// is closed; the pool then discards it.
//
// It does not use the request's context: when the client went away, that
// context is cancelled, and the connection is still worth keeping once
// its cancelled statement has ended.
func cleanUpAfterFailure(ctx context.Context, pg *pgconn.PgConn) {
	if pg.IsClosed() {
		return
	}
	sql := sessionResetScript
	if pg.TxStatus() != 'I' {
		sql = "ROLLBACK; " + sql
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	defer cancel()
	if _, err := pg.Exec(ctx, sql).ReadAll(); err != nil {
		_ = pg.Close(context.Background())
	}
}

// rollbackTimeout bounds the clean-up of a failed request; a server that
// does not answer in that time loses the connection instead.
const rollbackTimeout = 5 * time.Second

// statementName is the prepared statement's name: a digest of the role
// it runs as and its text, so one request shape of one role maps to one
// statement on every connection.
//
// The role is part of the name because a plan carries privilege checks
// made while planning: PostgreSQL inlines a simple LANGUAGE sql function
// after checking EXECUTE for the role that plans it, and a cached
// generic plan then runs the inlined body for whoever executes it. A
// statement shared across roles would let a role without EXECUTE run a
// function another role planned. Named per role, a plan is only ever
// reused by the role it was made for; a REVOKE of EXECUTE invalidates it
// (PostgreSQL tracks the inlined function), and a schema cache reload
// drops every statement (for a revoked role membership, which PostgreSQL
// does not track).
func statementName(role, sql string) string {
	h := sha256.New()
	h.Write([]byte(role))
	h.Write([]byte{0}) // a role name cannot hold NUL, so no two pairs collide
	h.Write([]byte(sql))
	var sum [sha256.Size]byte
	return "pgrst_" + hex.EncodeToString(h.Sum(sum[:0])[:16])
}
