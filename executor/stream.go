package executor

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"

	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
)

// A read of rows is answered in memory bounded by streamBound rather than
// by its size. Its statement returns the rows one by one (see
// sqlgen.RowStream), and they are read into a buffer up to the bound: a
// response that ends inside it is answered whole, as before (with
// Content-Length). Past it the transaction is left open on its connection,
// the header goes out, and the rest of the rows are copied to the client
// as they arrive; the transaction then ends and the session is reset as
// for any request, and the connection goes back to the pool.
//
// The header can be right before the rows are all read because the
// statement's first row already holds what it depends on: PostgreSQL
// counted the rows (and ran their expressions) into its own store before
// it read the response settings. What can still fail after the header is
// sent (the connection, a statement_timeout, the client) aborts the
// response, so that no client takes a truncated body for a whole one.

// defaultStreamBound is the bound: 1 MiB.
const defaultStreamBound = 1 << 20

// streamBound is the size past which a read's body is streamed.
var streamBound atomic.Int64

func init() { streamBound.Store(defaultStreamBound) }

// SetStreamBound sets the size in bytes past which a read's body is
// streamed rather than answered whole, and returns the previous one. It
// is for tests and benchmarks, which set it tiny to stream every body.
func SetStreamBound(n int) int {
	return int(streamBound.Swap(int64(max(n, 0))))
}

// flushSize is how much of a streamed body is gathered before it is
// written to the client.
const flushSize = 32 << 10

// rowStream reads a streamed statement's rows (see sqlgen.RowStream).
type rowStream struct {
	shape *sqlgen.RowStream
	bound int
	// body is the body read so far: the whole body once complete, what
	// goes out first when pending.
	body []byte
	// buffer is body's handle in bodyBuffers, handed on to the output
	// with a complete body (see body_buffers.go).
	buffer *[]byte
	// rows counts the rows read after the first.
	rows int64
	// rr is the reader left with rows to read, when the body outgrew the
	// bound; nil when the body is complete.
	rr *pgconn.ResultReader
	// finish holds what ends the transaction once the rows are read, in
	// order, each level of the runner's adding its own step: read the
	// rest of the pipeline, close it, clean up after a failure, release
	// the connection. Each takes the error so far and returns it, or a
	// later one.
	finish []func(error) error
	// cancel cancels the context the transaction runs in: to stop the
	// statement when the client went away, and at the end.
	cancel context.CancelFunc
}

// newRowStream is a reader of shape's rows; cancel cancels the
// transaction's context.
func newRowStream(shape *sqlgen.RowStream, cancel context.CancelFunc) *rowStream {
	body, buffer := takeBodyBuffer()
	return &rowStream{shape: shape, bound: int(streamBound.Load()), cancel: cancel, body: body, buffer: buffer}
}

// pending says rows are left on the connection: the body streams.
func (s *rowStream) pending() bool { return s != nil && s.rr != nil }

// then adds a step to run once the rows are read.
func (s *rowStream) then(step func(error) error) { s.finish = append(s.finish, step) }

// read reads the statement's first row into first and the rows after it
// into the body, until the body passes the bound (then the stream is
// pending) or the rows end.
func (s *rowStream) read(rr *pgconn.ResultReader, first *txResult) error {
	if !rr.NextRow() {
		_, err := rr.Close()
		if err == nil {
			err = errors.New("streamed statement returned no row")
		}
		return err
	}
	row := copyRow(rr.Values())
	if first != nil {
		first.rows = append(first.rows, row)
	}
	if len(row) <= sqlgen.ColBody {
		_, _ = rr.Close()
		return errors.New("streamed statement returned too few columns")
	}
	s.body = append(s.body, row[sqlgen.ColBody]...)
	for rr.NextRow() {
		s.add(rr.Values())
		if len(s.body) > s.bound {
			s.rr = rr
			return nil
		}
	}
	_, err := rr.Close()
	s.body = append(s.body, s.shape.End...)
	return err
}

// add appends one row's text to the body.
func (s *rowStream) add(values [][]byte) {
	if s.rows > 0 {
		s.body = append(s.body, s.shape.Separator...)
	}
	s.rows++
	s.body = append(s.body, values[sqlgen.ColBody]...)
}

// copyTo writes the body to w: what was read, then the rest of the rows
// as they come, then ends the transaction. It returns the first error,
// the client's or the database's: the body is then incomplete, and the
// transaction was rolled back.
func (s *rowStream) copyTo(w io.Writer) error {
	rr := s.rr
	s.rr = nil
	var werr error
	write := func() {
		if werr == nil {
			_, werr = w.Write(s.body)
			if werr != nil {
				// Nobody reads the rest: the statement is cancelled.
				s.cancel()
			}
		}
		s.body = s.body[:0]
	}
	write()
	for rr.NextRow() {
		s.add(rr.Values())
		if len(s.body) >= flushSize {
			write()
		}
	}
	_, err := rr.Close()
	if err == nil {
		s.body = append(s.body, s.shape.End...)
		write()
	}
	if err == nil {
		err = werr
	}
	return s.end(err)
}

// discard reads the pending rows through and ends the transaction: the
// body is not sent (the request failed after the transaction).
func (s *rowStream) discard() {
	if !s.pending() {
		return
	}
	rr := s.rr
	s.rr = nil
	for rr.NextRow() {
	}
	_, err := rr.Close()
	_ = s.end(err)
}

// releaseAfterStream leaves conn to s, which releases it once its rows
// are read; an error then of a client that went away is clientGone's.
func (e *Executor) releaseAfterStream(ctx context.Context, conn *pgxpool.Conn, s *rowStream) {
	s.then(func(err error) error {
		conn.Release()
		if err != nil && ctx.Err() != nil {
			return e.clientGone(ctx, err)
		}
		return err
	})
}

// logAborted logs why a streamed body broke off: at debug level when the
// client went away, since the server did nothing wrong.
func (e *Executor) logAborted(r *http.Request, err error) {
	level := zap.WarnLevel
	if r.Context().Err() != nil || errors.Is(err, context.Canceled) {
		level = zap.DebugLevel
	}
	if ce := e.logger.Check(level, "streamed response aborted"); ce != nil {
		ce.Write(zap.String("path", r.URL.Path), zap.Error(err))
	}
}

// end runs the finishing steps with the rows' error, and cancels the
// transaction's context.
func (s *rowStream) end(err error) error {
	for _, step := range s.finish {
		err = step(err)
	}
	s.cancel()
	return err
}
