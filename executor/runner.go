package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
)

// txSpec is one request's transaction: the settings, the pre-request call
// and the main statement, run in that order after BEGIN.
type txSpec struct {
	readOnly bool
	// statements run in order; the last one is the main statement, whose
	// rows are returned. The first switches to role; every later one runs
	// as role.
	statements []sqlgen.Statement
	// role is the role the request runs as. Statements after the first
	// are prepared per role (see statementName).
	role string
	// decided is true when commit-or-rollback is known before the main
	// statement runs (reads): the end is then pipelined with the rest and
	// the whole transaction takes one round trip.
	decided bool
	commit  bool
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
// statement and, when decided, COMMIT or ROLLBACK go in one round trip.
// Otherwise decide is called with the main result and the end is sent in a
// second round trip. Every error leaves the connection idle (rolled back)
// or closed, never inside a transaction.
func (e *Executor) run(ctx context.Context, pg *pgconn.PgConn, spec *txSpec, decide txDecision) ([]*txResult, error) {
	res, err := e.pipeline(ctx, pg, spec)
	if err != nil {
		rollbackIfOpen(ctx, pg)
		return nil, err
	}
	if spec.decided {
		return res, nil
	}
	commit := true
	if decide != nil {
		commit, err = decide(res[len(res)-1])
	}
	end := "ROLLBACK"
	if commit && err == nil {
		end = "COMMIT"
	}
	if _, endErr := pg.Exec(ctx, end).ReadAll(); endErr != nil {
		rollbackIfOpen(ctx, pg)
		if err == nil {
			err = endErr
		}
	}
	return res, err
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
	beginSent := sendTxControl(p, prepared, begin)

	// Statements not yet prepared on this connection are prepared inside
	// the pipeline, after set_config('role', ...) has run, so that Parse
	// checks names as the request's role and not as the authenticator.
	names := make([]string, len(spec.statements))
	parses := make([]bool, len(spec.statements))
	for i, st := range spec.statements {
		if !e.cfg.PreparedStatements {
			p.SendQueryParams(st.SQL.String(), st.Args, nil, nil, nil)
			continue
		}
		planRole := spec.role
		if i == 0 {
			// The settings statement runs before the switch, as the
			// authenticator, whatever the request's role.
			planRole = ""
		}
		names[i] = statementName(planRole, st.SQL.String())
		if !prepared.has(names[i]) {
			p.SendPrepare(names[i], st.SQL.String(), nil)
			parses[i] = true
		}
		p.SendQueryPrepared(names[i], st.Args, nil, nil)
	}
	var endSent txControl
	if spec.decided {
		end := "ROLLBACK"
		if spec.commit {
			end = "COMMIT"
		}
		endSent = sendTxControl(p, prepared, end)
	}
	if err := p.Sync(); err != nil {
		_ = p.Close()
		return nil, err
	}

	res, err := readPipeline(p, spec, parses, names, prepared, beginSent, endSent)
	closeErr := p.Close()
	if err != nil {
		return nil, err
	}
	if closeErr != nil {
		return nil, closeErr
	}
	return res, nil
}

// readPipeline reads the results in the order pipeline sent them. The
// result of every statement is returned; the last is the main statement.
func readPipeline(p *pgconn.Pipeline, spec *txSpec, parses []bool, names []string, prepared *statementSet,
	begin, end txControl) ([]*txResult, error) {
	if err := begin.read(p, prepared); err != nil {
		return nil, &beginError{err}
	}
	results := make([]*txResult, len(spec.statements))
	for i := range spec.statements {
		if parses[i] {
			if _, err := p.GetResults(); err != nil {
				return nil, err
			}
			prepared.add(names[i])
		}
		r, err := readResult(p, true)
		if err != nil {
			return nil, err
		}
		results[i] = r
	}
	if spec.decided {
		if err := end.read(p, prepared); err != nil {
			return nil, err
		}
	}
	if _, err := p.GetResults(); err != nil { // the Sync
		return nil, err
	}
	return results, nil
}

// readResult reads one statement's result, keeping its rows when keep.
func readResult(p *pgconn.Pipeline, keep bool) (*txResult, error) {
	out, err := p.GetResults()
	if err != nil {
		return nil, err
	}
	rr, ok := out.(*pgconn.ResultReader)
	if !ok {
		return nil, errors.New("pipeline: unexpected result")
	}
	res := &txResult{}
	for rr.NextRow() {
		if !keep {
			continue
		}
		vals := rr.Values()
		row := make([][]byte, len(vals))
		for i, v := range vals {
			if v != nil {
				// The reader reuses its buffer for the next row.
				row[i] = append(make([]byte, 0, len(v)), v...)
			}
		}
		res.rows = append(res.rows, row)
	}
	_, err = rr.Close()
	return res, err
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

// rollbackIfOpen ends a transaction an error left open, so the connection
// goes back to the pool idle. A connection that cannot be rolled back is
// closed; the pool then discards it.
//
// The rollback does not use the request's context: when the client went
// away, that context is cancelled, and the connection is still worth
// keeping once its cancelled statement has ended.
func rollbackIfOpen(ctx context.Context, pg *pgconn.PgConn) {
	if pg.IsClosed() || pg.TxStatus() == 'I' {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	defer cancel()
	if _, err := pg.Exec(ctx, "ROLLBACK").ReadAll(); err != nil {
		_ = pg.Close(context.Background())
	}
}

// rollbackTimeout bounds the ROLLBACK of a failed request; a server that
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
