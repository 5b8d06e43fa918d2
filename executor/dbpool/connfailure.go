package dbpool

import (
	"context"
	"errors"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// ConnectionCause says why a connection attempt failed in words that name
// no connection parameter: pgx's error text names the user, database,
// host and port of db_uri, which are none of an anonymous client's
// business, so a client is told one of these fixed phrases and the full
// cause goes to the log.
func ConnectionCause(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "28P01", "28000":
			return "The database refused the credentials of db_uri."
		case "3D000":
			return "The database named in db_uri does not exist."
		case "53300":
			return "The database server has no connection slots left."
		case "57P03":
			return "The database server is starting up or shutting down."
		}
		return "The database server refused the connection."
	}
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "Nothing accepts connections at the address of db_uri."
	case errors.As(err, &dnsErr):
		return "The database host of db_uri does not resolve."
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "Connecting to the database timed out."
	}
	return "The database server cannot be reached."
}
