// Package dbpooltest gives the tests of executor and executor/dbpool the
// pools they take connections from: dbpool.New's, on a real PostgreSQL
// started on first use (pgtest.Lazy), so that a package's tests that need
// no database do not pay for a cluster.
//
//	var testDB = &dbpooltest.Cluster{Name: "mypkg_acquire"}
//
//	func TestMain(m *testing.M) { testDB.Run(m) }
//
//	func TestSomething(t *testing.T) {
//		pool := testDB.Pool(t, 1)
//		...
//	}
package dbpooltest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgrest/caddy-pgrest/executor/dbpool"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// Cluster is a PostgreSQL cluster started on first use, with one database
// of its own. A Cluster with a Name is ready; Run it from TestMain.
type Cluster struct {
	// Name is the database's name, made on first use.
	Name string
	db   pgtest.Lazy
}

// Run runs the package's tests and stops the cluster, if one of them
// started it.
func (c *Cluster) Run(m *testing.M) {
	code := m.Run()
	c.db.Stop()
	os.Exit(code)
}

// Database is the database's superuser URL; the first call starts the
// cluster and makes the database.
func (c *Cluster) Database(t testing.TB) string {
	t.Helper()
	return c.db.Database(t, c.Name)
}

// Pool makes a pool of size connections on the database with dbpool.New,
// as pgrest makes its pools, and closes it when the test ends.
func (c *Cluster) Pool(t testing.TB, size int32) *pgxpool.Pool {
	t.Helper()
	pool, err := dbpool.New(context.Background(), dbpool.Config{URI: c.Database(t), MaxConns: size})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}
