package executor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
	"github.com/pgrest/caddy-pgrest/jwtauth"
	"go.uber.org/zap"
)

// transact runs main in the request's transaction: settings, pre-request,
// extras, main. Every transaction ends in the same round trip: a check of
// a read-write transaction's result runs in SQL too (see guard.go), so an
// error response never leaves a write behind. The extras' results are
// returned in order.
func (e *Executor) transact(r *http.Request, req *apirequest.Request, cache *schemacache.Cache, id jwtauth.Identity,
	main sqlgen.Statement, readOnly bool, extras ...sqlgen.Statement) (*output, []*txResult, error) {
	return e.transactWith(r, req, cache, id, main, txOptions{readOnly: readOnly, extras: extras})
}

// mainRun says how a request's main statement is run. It is set where the
// request is dispatched (handleOrExplain) and handed by the action to
// transactWith in its txOptions, so the actions need no code of their own
// for what replaces or precedes their statement.
type mainRun struct {
	// explain, when set, runs the main statement's EXPLAIN in its place
	// and answers the plan (see explain.go): the output transactWith
	// returns is then marked explained and the action passes it on as
	// it is.
	explain *apirequest.Plan
	// sentAccept is the Accept header the client sent when the action
	// sees another (a plan's for=, or JSON for db_root_spec's function):
	// SQL sees the one sent (request.headers).
	sentAccept     string
	acceptReplaced bool
}

// asSent is r as the client sent it, for the headers SQL sees
// (request.headers).
func (m mainRun) asSent(r *http.Request) *http.Request {
	if !m.acceptReplaced {
		return r
	}
	sent := r.Clone(r.Context())
	sent.Header.Set("Accept", m.sentAccept)
	return sent
}

// txOptions vary a request's transaction.
type txOptions struct {
	readOnly bool
	// checks hold the main result's page_total; a failed one is the
	// response and, in a read-write transaction, rolls back.
	checks pageChecks
	// extras run before the main statement; their results are returned.
	extras []sqlgen.Statement
	// settings are set for the transaction with the request's own (a
	// function's SET clauses, which PostgreSQL would apply only inside
	// the function, too late for statement_timeout).
	settings []schemacache.Setting
	// volatile marks the call of a VOLATILE function, which runs on the
	// primary even when read-only.
	volatile bool
	// run is how the main statement is run, as the dispatch set it.
	run mainRun
}

// transactWith is transact with options.
func (e *Executor) transactWith(r *http.Request, req *apirequest.Request, cache *schemacache.Cache, id jwtauth.Identity,
	main sqlgen.Statement, opts txOptions) (*output, []*txResult, error) {
	if opts.run.explain != nil {
		out, err := e.explainTransaction(r, req, cache, id, main, opts)
		return out, nil, err
	}
	commit, applied := e.txOutcome(req.Preferences)
	st := new(txStorage)
	statements := st.statements[:0]
	if n := 3 + len(opts.extras); n > len(st.statements) {
		statements = make([]sqlgen.Statement, 0, n)
	}
	statements = append(statements, e.settingsStatementIn(st.settingsArgs[:0], opts.run.asSent(r), id, req.Schema,
		e.legacyClaims(cache), cache.RoleSettings[id.Role], withTimezone(req.Preferences.Timezone, opts.settings)))
	if !e.preRequest.SQL.IsEmpty() {
		statements = append(statements, e.preRequest)
	}
	first := len(statements)
	statements = append(statements, opts.extras...)
	statements = append(statements, main)
	if e.cfg.LogQuery {
		e.logQueries(statements)
	}
	spec := e.txSpecFor(st, statements, id.Role, commit, opts)
	spec.costLimit = e.costLimit(cache, id.Role)

	var out *output
	decide := func(res *txResult) (bool, error) {
		out = nil
		oerr := readOutput(res, &st.out)
		if oerr == nil {
			out = &st.out
			oerr = opts.checks.check(out.pageTotal)
		}
		return commit && oerr == nil, oerr
	}
	// The transaction is timed for Server-Timing only: a clock read
	// costs a request a fraction of a microsecond.
	var start time.Time
	if e.cfg.ServerTimingEnabled {
		start = time.Now()
	}
	ctx := r.Context()
	if rows := main.Stream.Rows(); rows != nil {
		// The context of a streamed read outlives this call when its body
		// streams: it is cancelled when the body is written.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		spec.stream = newRowStream(rows, cancel)
	}
	results, err := e.runRouted(ctx, e.mayReadFromReplica(r, req, opts), spec, decide)
	if spec.stream != nil && !spec.stream.pending() {
		spec.stream.cancel()
	}
	if err != nil {
		// Declared here: errors.As takes its address, which would put it
		// on the heap for every request.
		var failed *guardFailure
		if errors.As(err, &failed) {
			return nil, nil, guardFailed(results, opts.checks, err)
		}
		return nil, nil, err
	}
	var txDuration time.Duration
	if e.cfg.ServerTimingEnabled {
		txDuration = time.Since(start)
	}
	if out == nil { // decided up front: the check runs after the fact
		if err = readOutput(results[len(results)-1], &st.out); err != nil {
			spec.stream.discard()
			return nil, nil, err
		}
		out = &st.out
		if err := opts.checks.check(out.pageTotal); err != nil {
			spec.stream.discard()
			if spec.guard != nil {
				// The guard passed what pgrest refuses: something
				// changed pgrst.page_total after the main statement.
				e.logger.Error("a write committed although its result fails the request's checks", zap.Error(err))
			}
			return nil, nil, err
		}
	}
	if spec.stream.pending() {
		out.body, out.more = nil, &outputMore{stream: spec.stream}
	} else if spec.stream != nil {
		// The handle keeps the buffer as it grew: the body may be
		// replaced before it is written (decodeHandlerBody).
		out.body, out.bodyBuffer = spec.stream.body, spec.stream.buffer
		*out.bodyBuffer = spec.stream.body
	}
	if e.cfg.ServerTimingEnabled {
		out.setTiming(&serverTiming{transaction: txDuration})
	}
	if applied != "" {
		out.preferenceApplied = append(out.preferenceApplied, applied)
	}
	return out, results[first : len(results)-1], nil
}

// runOnPool runs spec on a pool connection. A connection the server
// closed while it sat idle fails at BEGIN; the pool's connections are then
// renewed and the request runs once more, since nothing of it had run.
//
// A client that hangs up cancels ctx: pgx then asks the server to cancel
// the running statement (see dbpool.New), the transaction is rolled back and
// the connection goes back to the pool. That is no fault of the server's,
// so the pool is left alone and the request is not run again.
func (e *Executor) runOnPool(ctx context.Context, spec *txSpec, decide txDecision) ([]*txResult, error) {
	for attempt := 0; ; attempt++ {
		conn, err := e.acquire(ctx)
		if err != nil {
			return nil, err
		}
		pg := conn.Conn().PgConn()
		res, err := e.run(ctx, pg, spec, decide)
		if err == nil && spec.stream.pending() {
			e.releaseAfterStream(ctx, conn, spec.stream)
			return res, nil
		}
		conn.Release()
		if err != nil && ctx.Err() != nil {
			return nil, e.clientGone(ctx, err)
		}
		if err != nil && attempt == 0 && retryable(err, pg) {
			// A server that closed one idle connection (a restart,
			// pg_terminate_backend) has usually closed them all.
			e.logger.Info("connection closed by the server; retrying on a new one", zap.Error(err))
			e.pool.Reset()
			continue
		}
		return res, err
	}
}

// clientGone is the error of a request whose client went away (or whose
// deadline passed) while it ran: err, what the database or pgx said about
// the cancelled statement, is only logged, at debug level, since nobody
// reads the answer and the server did nothing wrong.
func (e *Executor) clientGone(ctx context.Context, err error) error {
	if ce := e.logger.Check(zap.DebugLevel, "client went away; its statement was cancelled"); ce != nil {
		ce.Write(zap.Error(err))
	}
	return fmt.Errorf("client went away: %w", ctx.Err())
}

// logQueries logs the statements of one request (log_query), as their
// text: the values travel as parameters and are left out.
func (e *Executor) logQueries(statements []sqlgen.Statement) {
	for _, st := range statements {
		if ce := e.logger.Check(e.cfg.LogQueryLevel, "query"); ce != nil {
			ce.Write(zap.String("sql", st.SQL.String()))
		}
	}
}

// legacyClaims says whether claims go one setting per claim.
func (e *Executor) legacyClaims(cache *schemacache.Cache) bool {
	switch e.cfg.LegacyClaims {
	case LegacyClaimsTrue:
		return true
	case LegacyClaimsFalse:
		return false
	}
	return cache.ServerVersionNum < 140000
}

// preRequestStatement calls db_pre_request, which may be schema-qualified
// (the part before the first dot is the schema); none when name is empty.
func preRequestStatement(name string) sqlgen.Statement {
	if name == "" {
		return sqlgen.Statement{}
	}
	fn := sqltext.Ident(name)
	if schemaName, function, ok := strings.Cut(name, "."); ok {
		fn = sqltext.Qualified(schemaName, function)
	}
	return sqlgen.Statement{SQL: sqltext.Fmt("select %s()", fn)}
}

// contentRange renders the Content-Range of a page starting at offset.
func contentRange(offset, pageTotal int64, total *int64) string {
	if total == nil {
		switch {
		case pageTotal == 0:
			return "*/*"
		case offset == 0 && pageTotal <= int64(len(firstPageRanges)):
			return firstPageRanges[pageTotal-1]
		}
	}
	t := "*"
	if total != nil {
		t = strconv.FormatInt(*total, 10)
	}
	if pageTotal == 0 {
		return "*/" + t
	}
	return strconv.FormatInt(offset, 10) + "-" + strconv.FormatInt(offset+pageTotal-1, 10) + "/" + t
}

// firstPageRanges are the Content-Range of a first page of 1 to 256 rows
// without a count, which most reads answer: made once, not per request.
var firstPageRanges = func() (ranges [256]string) {
	for i := range ranges {
		ranges[i] = "0-" + strconv.Itoa(i) + "/*"
	}
	return ranges
}()
