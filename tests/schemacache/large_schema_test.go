package schemacache

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The large schema is fixtures.LargeSchema. How long it takes to load is
// a figure of make bench (tests/bench -schema-load), not of a test: on a
// shared machine a wall-clock bound fails for the neighbours' sake.
const (
	largeTables = fixtures.LargeTables
	largeViews  = fixtures.LargeViews
)

// largeDB is the database of the large schema, made once for the tests
// that need it: it takes seconds to build.
var largeDB struct {
	once sync.Once
	dsn  string
	err  error
}

// largeSchemaDSN returns the superuser URL of the large schema's database.
func largeSchemaDSN(t testing.TB) string {
	t.Helper()
	largeDB.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		dsn, err := cluster.NewDatabase(ctx, "pgrest_schemacache_large")
		for _, batch := range append(fixtures.LargeSchema(), "analyze") {
			if err != nil {
				break
			}
			err = pgtest.ExecSQL(ctx, dsn, batch)
		}
		largeDB.dsn, largeDB.err = dsn, err
	})
	if largeDB.err != nil {
		t.Fatalf("building the large schema: %v", largeDB.err)
	}
	return largeDB.dsn
}

// TestTheCacheLoadsALargeSchema loads 1,000 tables with 1,998 foreign
// keys and 200 views as the authenticator, on a new connection and again
// on the same one: both loads find every relation and relationship, and
// each goes out in one round trip, as on the small fixture. Queries per
// table, the regression that made a large schema slow to load, would take
// a round trip each.
func TestTheCacheLoadsALargeSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a schema of 1,000 tables")
	}
	dsn := largeSchemaDSN(t)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, writes := connectCounting(t, ctx, pgtest.DSNFor(dsn, authenticator, authenticatorPassword))

	var first *schemacache.Cache
	for _, load := range []string{"first", "warm"} {
		before := writes.Load()
		c, err := schemacache.Load(ctx, conn, []string{"big"})
		if err != nil {
			t.Fatalf("the %s load: %v", load, err)
		}
		if n := writes.Load() - before; n != 1 {
			t.Errorf("the %s load wrote to the server %d times, want once", load, n)
		}
		if conn.PgConn().TxStatus() != 'I' {
			t.Errorf("the %s load left the connection in transaction state %q", load, conn.PgConn().TxStatus())
		}
		if first == nil {
			first = c
			checkLargeSchema(t, c)
			continue
		}
		requireSameCache(t, c, first)
	}
}

// checkLargeSchema checks that c holds every relation of the large
// schema and relationships of each kind.
func checkLargeSchema(t *testing.T, c *schemacache.Cache) {
	t.Helper()
	relationships := 0
	for name := range c.Relations["big"] {
		relationships += len(c.Relationships("big", name))
	}
	t.Logf("schemacache.Load of %d tables, %d foreign keys, %d views: %d relations, %d relationships",
		largeTables, 2*(largeTables-1), largeViews, len(c.Relations["big"]), relationships)
	if got := len(c.Relations["big"]); got != largeTables+largeViews {
		t.Errorf("loaded %d relations, want %d", got, largeTables+largeViews)
	}
	// t0500 references t0499 and t0250; t0501, t0999 and t1000 reference it.
	check := func(from, to string, want schemacache.Cardinality) {
		t.Helper()
		rels := c.FindRelationships("big", from, to, "")
		if len(rels) != 1 || rels[0].Cardinality != want {
			var got []string
			for _, r := range rels {
				got = append(got, r.Cardinality.String())
			}
			t.Errorf("%s -> %s: found %q, want one %s", from, to, got, want)
		}
	}
	check("t0500", "t0499", schemacache.M2O)
	check("t0500", "t0250", schemacache.M2O)
	check("t0500", "t0501", schemacache.O2M)
	check("t0500", "t0999", schemacache.O2M)
	check("v001", "t0004", schemacache.M2O) // v001 shows t0005, which references t0004
	check("v004", "t0014", schemacache.M2O) // v004 shows v003, which shows t0015
	check("t0006", "v001", schemacache.M2O) // t0006 references t0005, which v001 shows
}
