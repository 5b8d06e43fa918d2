package dbpool

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// cancelDeadline is how long a statement whose request was cancelled (its
// client hung up) may take to stop after the server was asked to cancel
// it; past that the connection's reads fail and pgx closes it.
const cancelDeadline = 3 * time.Second

// unsureCancelKey marks, in a connection's custom data, a connection whose
// cancel request the server did not acknowledge: the cancel might still
// arrive and hit the next request, so the pool discards it.
const unsureCancelKey = "pgrest.unsureCancel"

// statementCanceller is how pgrest's connections react to a cancelled
// context (a client that hung up). pgx's default closes the connection,
// which would cost a new connection per disconnect; this asks the server
// to cancel the running statement instead and keeps the connection.
//
// A cancel request is not tied to a statement: sent late, it cancels
// whatever the connection runs then, possibly the next client's request.
// So the connection is not used again before the server has acknowledged
// the request: PostgreSQL signals the backend before it closes the
// cancel connection, and a backend signalled while waiting for its next
// command ignores the cancel. pgx's own cancelling handler gives up on an
// unacknowledged cancel when the statement ends first and only waits a
// fixed 100 ms, which a busy server outlasts.
type statementCanceller struct {
	pg           *pgconn.PgConn
	done         chan struct{}
	acknowledged bool
}

func newStatementCanceller(pg *pgconn.PgConn) ctxwatch.Handler {
	return &statementCanceller{pg: pg}
}

func (h *statementCanceller) HandleCancel(context.Context) {
	deadline := time.Now().Add(cancelDeadline)
	// A server that ignores the cancel still ends the wait: the read fails
	// at the deadline and pgx closes the connection.
	_ = h.pg.Conn().SetDeadline(deadline)
	h.done = make(chan struct{})
	h.acknowledged = false
	go func() {
		defer close(h.done)
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		defer cancel()
		err := h.pg.CancelRequest(ctx)
		h.acknowledged = err == nil && ctx.Err() == nil
	}()
}

func (h *statementCanceller) HandleUnwatchAfterCancel() {
	<-h.done
	if !h.acknowledged {
		h.pg.CustomData()[unsureCancelKey] = true
	}
	_ = h.pg.Conn().SetDeadline(time.Time{})
}

// usableOnAcquire is the pool's PrepareConn: a connection with a cancel
// request in doubt is not used again; the pool closes it and hands out
// another. It is checked when a connection is taken rather than when it
// is given back (AfterRelease), which pgx runs in a goroutine of its own
// for every release: a goroutine per request, and a connection that goes
// back to the pool only once it is scheduled.
func usableOnAcquire(_ context.Context, c *pgx.Conn) (bool, error) {
	_, unsure := c.PgConn().CustomData()[unsureCancelKey]
	return !unsure, nil
}
