package dbpool

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestConnectionCause(t *testing.T) {
	dial := func(err error) error {
		return fmt.Errorf("failed to connect to `user=alice database=secretdb`: 10.1.2.3:6543 (db.internal): dial error: %w",
			&net.OpError{Op: "dial", Net: "tcp", Err: err})
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"wrong credentials", fmt.Errorf("wrapped: %w", &pgconn.PgError{Code: "28P01", Message: `password authentication failed for user "alice"`}),
			"The database refused the credentials of db_uri."},
		{"a database that does not exist", &pgconn.PgError{Code: "3D000", Message: `database "secretdb" does not exist`},
			"The database named in db_uri does not exist."},
		{"no connection slots", &pgconn.PgError{Code: "53300"}, "The database server has no connection slots left."},
		{"another refusal by the server", &pgconn.PgError{Code: "08004"}, "The database server refused the connection."},
		{"nothing listening", dial(os.NewSyscallError("connect", syscall.ECONNREFUSED)),
			"Nothing accepts connections at the address of db_uri."},
		{"a host that does not resolve", dial(&net.DNSError{Err: "no such host", Name: "db.internal"}),
			"The database host of db_uri does not resolve."},
		{"a timeout", dial(context.DeadlineExceeded), "Connecting to the database timed out."},
		{"anything else", errors.New("tls: secretdb alice 10.1.2.3"), "The database server cannot be reached."},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is told without connection details", func(t *testing.T) {
			if got := ConnectionCause(tt.err); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
