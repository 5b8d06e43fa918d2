package changes

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
	"go.uber.org/zap"
)

// read streams the slot until the feed closes. A lost connection (a
// PostgreSQL restart, a network cut) is retried with backoff from the
// slot, which PostgreSQL kept at the last position the feed confirmed:
// nothing committed meanwhile is lost, and what the feed had already
// queued is skipped when PostgreSQL sends it again.
func (f *Feed) read(ctx context.Context, conn *pgconn.PgConn) {
	defer f.done.Done()
	defer close(f.txns)
	r := &reader{feed: f, dec: &decoder{cat: f.cat, relations: map[uint32]*relation{}}}
	backoff := 100 * time.Millisecond
	for {
		var err error
		if conn == nil {
			conn, err = f.connect(ctx)
		}
		if err == nil {
			var streamed bool
			streamed, err = r.stream(ctx, conn)
			conn.Close(context.Background())
			conn = nil
			if streamed {
				backoff = 100 * time.Millisecond
			}
		}
		if ctx.Err() != nil {
			return
		}
		f.log.Warn("realtime: replication stream lost; reconnecting", zap.Error(err), zap.Duration("in", backoff))
		// Jitter, so that nodes do not all come back at once.
		wait := backoff/2 + rand.N(backoff/2+1)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		backoff = min(2*backoff, f.cfg.ReconnectMax)
	}
}

// reader is the state of the stream that outlives a connection.
type reader struct {
	feed *Feed
	dec  *decoder
	// queued is the commit LSN of the last transaction handed to the
	// dispatcher; a transaction at or before it is a resend.
	queued pglogrepl.LSN
	// confirmed is the position last reported to PostgreSQL.
	confirmed pglogrepl.LSN
}

// pluginArgs are pgoutput's options: protocol 1 and the publication,
// quoted as an identifier list inside a string literal (pgoutput splits
// publication_names with SplitIdentifierString).
func pluginArgs(publication string) []string {
	names := strings.ReplaceAll(sqltext.Ident(publication).String(), "'", "''")
	return []string{"proto_version '1'", "publication_names '" + names + "'"}
}

// stream runs one connection's START_REPLICATION until it fails; it
// says whether streaming began (to reset the backoff).
func (r *reader) stream(ctx context.Context, conn *pgconn.PgConn) (bool, error) {
	f := r.feed
	if err := pglogrepl.StartReplication(ctx, conn, f.cfg.SlotName, 0,
		pglogrepl.StartReplicationOptions{PluginArgs: pluginArgs(f.cfg.Publication)}); err != nil {
		return false, fmt.Errorf("starting replication: %w", err)
	}
	r.dec.cur = nil // a transaction cut by the lost connection is sent again whole
	next := time.Now().Add(f.cfg.StatusInterval)
	var serverEnd pglogrepl.LSN
	for {
		if f.poolDown.Load() {
			return true, errors.New("the database is out of reach for authorization; the stream waits for it")
		}
		if time.Now().After(next) {
			if err := r.status(ctx, conn, serverEnd); err != nil {
				return true, err
			}
			next = time.Now().Add(f.cfg.StatusInterval)
		}
		// At most a second between looks at poolDown.
		deadline := time.Now().Add(time.Second)
		if next.Before(deadline) {
			deadline = next
		}
		rctx, cancel := context.WithDeadline(ctx, deadline)
		raw, err := conn.ReceiveMessage(rctx)
		cancel()
		if err != nil {
			if pgconn.Timeout(err) && ctx.Err() == nil {
				continue
			}
			return true, err
		}
		switch msg := raw.(type) {
		case *pgproto3.ErrorResponse:
			return true, pgconn.ErrorResponseToPgError(msg)
		case *pgproto3.CopyData:
			if len(msg.Data) == 0 {
				continue
			}
			switch msg.Data[0] {
			case pglogrepl.PrimaryKeepaliveMessageByteID:
				k, err := pglogrepl.ParsePrimaryKeepaliveMessage(msg.Data[1:])
				if err != nil {
					return true, err
				}
				serverEnd = k.ServerWALEnd
				if k.ReplyRequested {
					next = time.Time{}
				}
			case pglogrepl.XLogDataByteID:
				x, err := pglogrepl.ParseXLogData(msg.Data[1:])
				if err != nil {
					return true, err
				}
				if err := r.handle(ctx, x.WALData); err != nil {
					return true, err
				}
			}
		}
	}
}

// handle decodes one pgoutput message and queues a committed
// transaction not yet queued.
func (r *reader) handle(ctx context.Context, data []byte) error {
	msg, err := pglogrepl.Parse(data)
	if err != nil {
		return fmt.Errorf("decoding pgoutput: %w", err)
	}
	t, err := r.dec.handle(ctx, msg)
	if err != nil || t == nil {
		return err
	}
	if t.commitLSN <= r.queued {
		return nil // sent again after a reconnection: already queued
	}
	select {
	case r.feed.txns <- t:
		r.queued = t.commitLSN
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// status tells PostgreSQL how far the feed has delivered, so the slot
// frees the WAL before it. When every queued transaction is delivered
// and none is half read, everything up to the server's last reported
// end was seen, and that is confirmed instead, so the slot does not hold
// WAL of tables outside the publication.
func (r *reader) status(ctx context.Context, conn *pgconn.PgConn, serverEnd pglogrepl.LSN) error {
	pos := pglogrepl.LSN(r.feed.delivered.Load())
	if r.dec.cur == nil && len(r.feed.txns) == 0 && r.feed.deliveredCommit.Load() == uint64(r.queued) && serverEnd > pos {
		pos = serverEnd
	}
	pos = max(pos, r.confirmed)
	err := pglogrepl.SendStandbyStatusUpdate(ctx, conn, pglogrepl.StandbyStatusUpdate{
		WALWritePosition: pos, WALFlushPosition: pos, WALApplyPosition: pos})
	if err != nil {
		return err
	}
	r.confirmed = pos
	return nil
}

// ErrFeedClosed ends the subscriptions of a feed that closed.
var ErrFeedClosed = errors.New("realtime: the change feed closed")
