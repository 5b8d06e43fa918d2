package executor

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/dbpool"
	"github.com/pgrest/caddy-pgrest/executor/replicas"
)

// mayReadFromReplica says whether a request's transaction may run on a
// read replica: a read-only one (GET and HEAD reads, calls of STABLE and
// IMMUTABLE functions whatever the method, the API description) that is
// not a VOLATILE function's call (run read-only on GET, as PostgREST
// does, but a volatile function may still do what a replica cannot, such
// as nextval), not Prefer: tx=commit, and whose client did not ask for a
// fresh answer (see wantsPrimary). Everything else runs on the primary.
func (e *Executor) mayReadFromReplica(r *http.Request, req *apirequest.Request, opts txOptions) bool {
	return e.cfg.Replicas != nil && opts.readOnly && !opts.volatile &&
		req.Preferences.Tx != "commit" && !wantsPrimary(r.Header)
}

// wantsPrimary says the client asked not to be answered from a copy that
// may be behind: Cache-Control: no-cache or max-age=0, or Pragma:
// no-cache, which is what HTTP (RFC 9111) has a client send when it wants
// the origin's current answer rather than a stored one, and what fetch()
// sends with cache: "no-cache" or "reload". A replica is such a copy of
// the primary, so this is pgrest's read-your-writes: a client sends it on
// the reads that must see its own writes. It only ever chooses the
// primary.
func wantsPrimary(h http.Header) bool {
	for _, v := range h.Values("Cache-Control") {
		for d := range strings.SplitSeq(v, ",") {
			d = strings.ToLower(strings.TrimSpace(d))
			if d == "no-cache" || strings.HasPrefix(d, "no-cache=") || d == "max-age=0" {
				return true
			}
		}
	}
	for _, v := range h.Values("Pragma") {
		if strings.EqualFold(strings.TrimSpace(v), "no-cache") {
			return true
		}
	}
	return false
}

// runRouted runs spec on a read replica when onReplica says it may and
// one is up, taking the replicas in turn; otherwise, or when every
// replica tried failed it, on the primary (runOnPool). A transaction that
// may run on a replica is read-only, so running it again elsewhere after
// a replica failed it changes nothing: a replica going away under load
// costs its reads some time, never an error.
func (e *Executor) runRouted(ctx context.Context, onReplica bool, spec *txSpec, decide txDecision) ([]*txResult, error) {
	rs := e.cfg.Replicas
	if !onReplica || rs == nil || !spec.readOnly {
		return e.runOnPool(ctx, spec, decide)
	}
	for rep := range rs.Up() {
		res, outcome, err := e.runOnReplica(ctx, rep, spec, decide)
		switch outcome {
		case replicaServed:
			return res, err
		case replicaFailed:
			rs.MarkDown(rep, err)
		}
	}
	rs.ReadOnPrimary()
	return e.runOnPool(ctx, spec, decide)
}

// replicaOutcome says what became of a transaction sent to a replica.
type replicaOutcome int

const (
	// replicaServed: the replica answered, with rows or with an error
	// that is the request's own (a missing privilege, a bad cast).
	replicaServed replicaOutcome = iota
	// replicaFailed: the replica could not run it (down, shutting down,
	// its connection broke); it leaves rotation and the transaction runs
	// elsewhere.
	replicaFailed
	// replicaBusy: the replica is up but could not run it now (its pool
	// is full, a recovery conflict cancelled the statement or ended the
	// connection); it stays in rotation and the transaction runs
	// elsewhere.
	replicaBusy
)

// runOnReplica runs spec on a connection of rep's pool.
func (e *Executor) runOnReplica(ctx context.Context, rep *replicas.Replica, spec *txSpec, decide txDecision) ([]*txResult, replicaOutcome, error) {
	conn, err := e.acquireWithin(ctx, rep.Pool(), false)
	if err != nil {
		if ctx.Err() != nil {
			return nil, replicaServed, e.clientGone(ctx, err)
		}
		var connErr *pgconn.ConnectError
		if !errors.As(err, &connErr) && dbpool.Full(rep.Pool()) {
			return nil, replicaBusy, err
		}
		return nil, replicaFailed, err
	}
	pg := conn.Conn().PgConn()
	res, err := e.run(ctx, pg, spec, decide)
	if err == nil && spec.stream.pending() {
		rep.Served()
		e.releaseAfterStream(ctx, conn, spec.stream)
		return res, replicaServed, nil
	}
	conn.Release()
	switch {
	case err == nil:
		rep.Served()
		return res, replicaServed, nil
	case ctx.Err() != nil:
		return nil, replicaServed, e.clientGone(ctx, err)
	case recoveryConflict(err):
		// Before the closed connection: a conflict met inside a
		// subtransaction (a function's exception block) ends the
		// connection (FATAL) rather than the statement, and the replica
		// is as well as after a cancelled statement.
		return nil, replicaBusy, err
	case pg.IsClosed() || replicaGoingAway(err):
		return nil, replicaFailed, err
	}
	return nil, replicaServed, err
}

// replicaGoingAway says err is a server's refusal to go on serving:
// shutting down, crashed, starting up, or a connection failure.
func replicaGoingAway(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Code {
	case "57P01", "57P02", "57P03": // admin_shutdown, crash_shutdown, cannot_connect_now
		return true
	}
	return strings.HasPrefix(pgErr.Code, "08") // connection exceptions
}

// recoveryConflict says a replica cancelled the statement, or ended the
// connection, because the WAL it replays conflicted with it
// (serialization_failure or deadlock_detected, which a read-only READ
// COMMITTED transaction meets on a replica only that way); the primary
// has no such conflict.
func recoveryConflict(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01")
}
