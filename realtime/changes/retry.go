package changes

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"go.uber.org/zap"
)

// retry runs query until it succeeds, fails with an error of the query
// itself (running it again would not help), or the feed closes. Any
// other error is a lost or refused connection, as around a PostgreSQL
// restart: the pool's idle connections are all dead then, and giving up
// would drop changes the slot will not send again once they are
// confirmed.
func (f *Feed) retry(ctx context.Context, what string, query func() error) error {
	backoff := 50 * time.Millisecond
	for {
		err := query()
		if err == nil || !connectionLost(err) || ctx.Err() != nil {
			f.poolDown.Store(false)
			return err
		}
		f.poolDown.Store(true)
		f.log.Warn("realtime: "+what+" failed; retrying", zap.Error(err), zap.Duration("in", backoff))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, f.cfg.ReconnectMax)
	}
}

// connectionLost says whether err is the connection's rather than the
// query's: no answer from the server at all, or the server ending or
// refusing the session (connection exceptions, class 08; shutdown and
// start-up, 57P01 to 57P03; too many connections, 53300).
func connectionLost(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return true
	}
	switch pgErr.Code {
	case "57P01", "57P02", "57P03", "53300":
		return true
	}
	return strings.HasPrefix(pgErr.Code, "08")
}
