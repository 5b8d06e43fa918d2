package executor

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// An advisory lock taken in InRolledBackTx's transaction outlives its
// rollback at session level; the reset frees it before whoever takes the
// connection next.
func TestInRolledBackTxResetsTheSession(t *testing.T) {
	pool := testDB.Pool(t, 1)
	ctx := context.Background()
	var pid int
	err := InRolledBackTx(ctx, pool, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, "select pg_backend_pid() from pg_advisory_lock(4242)").Scan(&pid)
	})
	if err != nil {
		t.Fatal(err)
	}
	var samePID bool
	var locks int
	err = pool.QueryRow(ctx, `select pg_backend_pid() = $1, (select count(*) from pg_locks
		where locktype = 'advisory' and pid = pg_backend_pid())`, pid).Scan(&samePID, &locks)
	if err != nil {
		t.Fatal(err)
	}
	if !samePID {
		t.Fatal("the pool of one gave another connection")
	}
	if locks != 0 {
		t.Errorf("the next user of the connection holds %d advisory locks", locks)
	}
}

// A connection ReleaseReset cannot reset is closed, not given back.
func TestReleaseResetClosesWhatItCannotReset(t *testing.T) {
	pool := testDB.Pool(t, 1)
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pid := conn.Conn().PgConn().PID()
	// Another session ends this one's backend, and waits until it has
	// exited: the reset fails.
	other, err := pgx.Connect(ctx, testDB.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	if _, err := other.Exec(ctx, "select pg_terminate_backend($1, 10000)", int64(pid)); err != nil {
		t.Fatal(err)
	}
	ReleaseReset(ctx, conn)
	// The pool destroys a closed connection in the background: the next
	// acquisition waits for that (the pool holds one), then connects
	// anew. Had the dead connection gone back, it would be handed out
	// again (idle for less than a second, it is not pinged) and fail.
	var newPID uint32
	if err := pool.QueryRow(ctx, "select pg_backend_pid()").Scan(&newPID); err != nil || newPID == pid {
		t.Errorf("the next acquisition: pid %d (was %d), %v", newPID, pid, err)
	}
}
