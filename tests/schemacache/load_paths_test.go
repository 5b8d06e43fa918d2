package schemacache

import (
	"bytes"
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgrest/caddy-pgrest/executor/dbpool"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// countingConn counts the writes to a connection: each is a flush of
// what the client queued, so a load's round trips.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(b []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(b)
}

// connectCounting connects to dsn through a countingConn and returns the
// connection (closed when t ends) and its count of writes.
func connectCounting(t *testing.T, ctx context.Context, dsn string) (*pgx.Conn, *atomic.Int64) {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	writes := &atomic.Int64{}
	dial := cfg.DialFunc
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{c, writes}, nil
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn, writes
}

// TestTheCacheLoadsInOneRoundTrip: every catalog query goes out in one
// write, the transaction's begin and end included, whatever the number
// of queries.
func TestTheCacheLoadsInOneRoundTrip(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, writes := connectCounting(t, ctx, pgtest.DSNFor(fixtureDSN, authenticator, authenticatorPassword))
	for round := 1; round <= 2; round++ {
		before := writes.Load()
		c, err := schemacache.Load(ctx, conn, []string{"api"})
		if err != nil {
			t.Fatal(err)
		}
		if n := writes.Load() - before; n != 1 {
			t.Errorf("round %d: the load wrote to the server %d times, want once", round, n)
		}
		if conn.PgConn().TxStatus() != 'I' {
			t.Errorf("round %d: the load left the connection in transaction state %q", round, conn.PgConn().TxStatus())
		}
		requireSameCache(t, c, fixture)
	}
}

// TestTheCacheLoadsThroughEveryKindOfConnection: pgrest's pool (no named
// statements, QueryExecModeDescribeExec) after its statements were
// dropped, the pool itself, a transaction of the caller's, and PgBouncer
// in transaction pooling mode all load the same cache.
func TestTheCacheLoadsThroughEveryKindOfConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	app := pgtest.DSNFor(fixtureDSN, authenticator, authenticatorPassword)

	pool, err := dbpool.New(ctx, dbpool.Config{URI: app, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for round := 1; round <= 2; round++ {
		pc, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c, err := schemacache.Load(ctx, pc, []string{"api"})
		if err != nil {
			t.Fatalf("round %d through a pool connection: %v", round, err)
		}
		requireSameCache(t, c, fixture)
		if _, err := pc.Exec(ctx, "deallocate all"); err != nil {
			t.Fatal(err)
		}
		pc.Release()
	}
	c, err := schemacache.Load(ctx, pool, []string{"api"})
	if err != nil {
		t.Fatalf("through the pool: %v", err)
	}
	requireSameCache(t, c, fixture)

	conn := pgtest.Connect(t, app)
	defer conn.Close(context.Background())
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err = schemacache.Load(ctx, tx, []string{"api"})
	if err != nil {
		t.Fatalf("inside a transaction: %v", err)
	}
	requireSameCache(t, c, fixture)
	// The caller's transaction is left open, and as it was.
	var jit string
	if err := tx.QueryRow(ctx, "select current_setting('jit')").Scan(&jit); err != nil {
		t.Fatalf("the caller's transaction after the load: %v", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	if _, err := cluster.StartPgBouncer(); err != nil {
		if err == pgtest.ErrNotOurs {
			t.Log("PgBouncer is not tested against a server this test did not start")
			return
		}
		t.Fatal(err)
	}
	viaBouncer, err := cluster.ViaPgBouncer(app)
	if err != nil {
		t.Fatal(err)
	}
	bouncerPool, err := dbpool.New(ctx, dbpool.Config{URI: viaBouncer, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer bouncerPool.Close()
	for round := 1; round <= 3; round++ {
		c, err := schemacache.Load(ctx, bouncerPool, []string{"api"})
		if err != nil {
			t.Fatalf("round %d through PgBouncer: %v", round, err)
		}
		requireSameCache(t, c, fixture)
	}
}

// TestAFailedLoadLeavesTheConnectionUsable: a catalog query that fails
// mid-pipeline (here, on a statement timeout too short for the catalog's
// functions) fails the load, and leaves the connection idle and working.
func TestAFailedLoadLeavesTheConnectionUsable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn := pgtest.Connect(t, pgtest.DSNFor(fixtureDSN, authenticator, authenticatorPassword))
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "set statement_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "select pg_sleep(0.01)"); pgtest.SQLState(err) != "57014" {
		t.Fatalf("the statement timeout does not cancel a statement of 10 ms: %v", err)
	}
	if _, err := schemacache.Load(ctx, conn, []string{"api"}); err == nil {
		t.Fatal("the load succeeded under a statement timeout of 1 ms")
	} else if pgtest.SQLState(err) != "57014" {
		t.Errorf("the load failed with %v, want the statement timeout's 57014", err)
	}
	if s := conn.PgConn().TxStatus(); s != 'I' {
		t.Errorf("after the failed load the connection is in transaction state %q, want idle", s)
	}
	if _, err := conn.Exec(ctx, "reset statement_timeout"); err != nil {
		t.Fatalf("the connection after the failed load: %v", err)
	}
	c, err := schemacache.Load(ctx, conn, []string{"api"})
	if err != nil {
		t.Fatalf("loading again: %v", err)
	}
	requireSameCache(t, c, fixture)
}

// requireSameCache compares two caches by their dumps.
func requireSameCache(t *testing.T, got, want *schemacache.Cache) {
	t.Helper()
	var g, w bytes.Buffer
	if err := got.Dump(&g); err != nil {
		t.Fatal(err)
	}
	if err := want.Dump(&w); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(g.Bytes(), w.Bytes()) {
		t.Errorf("the cache differs from the fixture's:\n%s", lineDiff(w.String(), g.String()))
	}
}
