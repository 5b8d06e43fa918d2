package schemacache

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgrest/caddy-pgrest/executor/schema"
	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The large schema is fixtures.LargeSchema.
const (
	largeTables = fixtures.LargeTables
	largeViews  = fixtures.LargeViews
	// goalBound is the goal for a load on a warm connection, asserted as
	// it is whenever the machine is quiet enough for the reference below
	// to take under 20 ms.
	goalBound = 100 * time.Millisecond
	// referenceFactor bounds a warm load by the time the server takes to
	// list its time zone names (select name from pg_timezone_names,
	// timed beside each load on the same connection), a fixed piece of
	// catalog work that no loader can speed up. Loads included it until
	// Prefer: timezone no longer needed the names (PostgREST v16), when
	// it was about 40% of the server's CPU time in a load of this schema
	// (the loader before the pipeline took 6-10 times as long as it); it
	// stays a measure of the machine. On a shared machine whose
	// neighbours are busy, both slow down alike and
	// a fixed bound would fail for the neighbours' sake; the ratio still
	// fails a regression (JIT compiling the catalog queries, per-table
	// queries, quadratic derivation; one round trip is checked by
	// TestTheCacheLoadsInOneRoundTrip). The bound is the larger of the
	// two: the goal itself whenever the reference takes under 20 ms.
	referenceFactor = 5
	// warmLoads are timed after the first; the test reports the best of
	// the first three loads, as the goal is stated, and bounds the best
	// of all, which steadies the ratio on a busy machine.
	warmLoads = 5
	// firstBound is looser: the first load on a new connection also fills
	// the server's catalog caches (about twice the server's work).
	firstBound = 5 * time.Second
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

// TestLoadTimeOfALargeSchema measures schema.Load on 1,000 tables with
// 1,998 foreign keys and 200 views, as the authenticator.
func TestLoadTimeOfALargeSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a schema of 1,000 tables")
	}
	dsn := largeSchemaDSN(t)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, pgtest.DSNFor(dsn, authenticator, authenticatorPassword))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())

	var c *schema.Cache
	var first, bestOf3, best, reference time.Duration
	for i := range 1 + warmLoads {
		start := time.Now()
		c, err = schema.Load(ctx, conn, []string{"big"})
		took := time.Since(start)
		if err != nil {
			t.Fatalf("loading the schema cache: %v", err)
		}
		ref := timeZonesQueryTime(t, ctx, conn)
		if i == 0 {
			first, bestOf3, best, reference = took, took, took, ref
		}
		if i < 3 {
			bestOf3 = min(bestOf3, took)
		}
		best, reference = min(best, took), min(reference, ref)
	}
	relationships := 0
	for name := range c.Relations["big"] {
		relationships += len(c.Relationships("big", name))
	}
	t.Logf("schema.Load of %d tables, %d foreign keys, %d views: first %v, best of 3 %v, best of %d %v "+
		"(%d relations, %d relationships); the time zone names alone: best of %d %v",
		largeTables, 2*(largeTables-1), largeViews, first.Round(time.Millisecond), bestOf3.Round(time.Millisecond),
		1+warmLoads, best.Round(time.Millisecond), len(c.Relations["big"]), relationships,
		1+warmLoads, reference.Round(100*time.Microsecond))
	if first > firstBound {
		t.Errorf("the first schema.Load took %v, more than %v", first, firstBound)
	}
	// The goal on an idle machine; on a busy one, a bound that grows
	// with the time of a fixed part of the load.
	if bound := max(goalBound, referenceFactor*reference); best > bound {
		t.Errorf("schema.Load took %v at best, more than %v (%v, or %d times the %v of the time zone query alone)",
			best, bound, goalBound, referenceFactor, reference)
	}

	if got := len(c.Relations["big"]); got != largeTables+largeViews {
		t.Errorf("loaded %d relations, want %d", got, largeTables+largeViews)
	}
	// t0500 references t0499 and t0250; t0501, t0999 and t1000 reference it.
	check := func(from, to string, want schema.Cardinality) {
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
	check("t0500", "t0499", schema.M2O)
	check("t0500", "t0250", schema.M2O)
	check("t0500", "t0501", schema.O2M)
	check("t0500", "t0999", schema.O2M)
	check("v001", "t0004", schema.M2O) // v001 shows t0005, which references t0004
	check("v004", "t0014", schema.M2O) // v004 shows v003, which shows t0015
	check("t0006", "v001", schema.M2O) // t0006 references t0005, which v001 shows
}

// timeZonesQueryTime times a catalog query of fixed work that no change
// to the loader can speed up: it reads every time zone file.
func timeZonesQueryTime(t *testing.T, ctx context.Context, conn *pgx.Conn) time.Duration {
	t.Helper()
	start := time.Now()
	rows, err := conn.Query(ctx, "select name from pg_catalog.pg_timezone_names")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	rows.Close()
	if err := rows.Err(); err != nil || n == 0 {
		t.Fatalf("listing the time zone names: %v (%d names)", err, n)
	}
	return time.Since(start)
}
