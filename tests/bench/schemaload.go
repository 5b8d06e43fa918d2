package main

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The schema cache's load time is measured on the large schema of
// tests/schemacache's large-schema test: largeTables tables, each but the
// first with two foreign keys to earlier tables, and largeViews views
// over them, every fourth over another view; in a database of its own, as
// the authenticator (which has no privilege on it), with schemacache.Load, the
// function pgrest loads its cache with. The first load runs on a fresh
// connection; the figure is the median of the schemaLoads after it.
const (
	largeTables = fixtures.LargeTables
	largeViews  = fixtures.LargeViews
	schemaLoads = 5
	// schemaLoadGoal is the goal for this schema.
	schemaLoadGoal = 100 * time.Millisecond
)

type schemaLoadResult struct {
	first, median, best time.Duration
	relations           int
	// cpu and dbCPU are the CPU time per load, after the first, of this
	// process and of the server (0 when not measured): on a busy machine
	// the wall-clock time also holds the waits for a core.
	cpu, dbCPU time.Duration
	// build is how long building the schema took.
	build time.Duration
}

func (r *schemaLoadResult) print() {
	fmt.Printf("Schema cache load (schemacache.Load as the authenticator) of %d tables, %d foreign keys, %d views (%d relations loaded; building them took %s):\n",
		largeTables, 2*(largeTables-1), largeViews, r.relations, r.build.Round(time.Second))
	fmt.Printf("  first %s, then median of %d %s, best %s; CPU time per load: %s in this process",
		ms(r.first), schemaLoads, ms(r.median), ms(r.best), ms(r.cpu))
	if r.dbCPU > 0 {
		fmt.Printf(", %s in PostgreSQL", ms(r.dbCPU))
	}
	fmt.Println()
}

func measureSchemaLoad(ctx context.Context, e *env) (*schemaLoadResult, error) {
	runtime.GC()
	began := time.Now()
	dsn, err := e.cluster.NewDatabase(ctx, "pgrest_bench_schema")
	if err != nil {
		return nil, err
	}
	for _, batch := range append(fixtures.LargeSchema(), "analyze") {
		if err := pgtest.ExecSQL(ctx, dsn, batch); err != nil {
			return nil, fmt.Errorf("building the large schema: %w", err)
		}
	}
	conn, err := pgx.Connect(ctx, pgtest.DSNFor(dsn, "authenticator", authenticatorPassword))
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	var took []time.Duration
	res := &schemaLoadResult{build: time.Since(began)}
	var cpu0, db0 time.Duration
	for i := range 1 + schemaLoads {
		if i == 1 {
			cpu0 = processCPU()
			if e.db != nil {
				db0 = e.db.total()
			}
		}
		start := time.Now()
		c, err := schemacache.Load(ctx, conn, []string{"big"})
		d := time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("loading the schema cache: %w", err)
		}
		res.relations = len(c.Relations["big"])
		if res.relations != largeTables+largeViews {
			return nil, fmt.Errorf("the schema cache holds %d relations of schema big, want %d", res.relations, largeTables+largeViews)
		}
		if i == 0 {
			res.first = d
			continue
		}
		took = append(took, d)
	}
	res.cpu = (processCPU() - cpu0) / schemaLoads
	if e.db != nil {
		res.dbCPU = (e.db.total() - db0) / schemaLoads
	}
	slices.Sort(took)
	res.median, res.best = took[len(took)/2], took[0]
	return res, nil
}
