package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// The cost guard variant (on unless -costguard=false): pgrest with a
// db_max_cost that no workload's statement reaches, in a site beside
// pgrest's and measured in the same windows, so that every request takes
// the guarded path (its EXPLAIN first, then the statement in a second
// round trip) and is never refused: what the guard costs is its throughput
// and latency against pgrest's without a limit.
const guardName = "pgrest+costguard"

// benchMaxCost is far above any workload's plan cost.
const benchMaxCost = "db_max_cost 1000000000"

// costGuardSite writes the variant's site and returns its base URL.
func costGuardSite(b *bytes.Buffer, authDSN string, pool int) (string, error) {
	port, err := pgresttest.FreePort()
	if err != nil {
		return "", err
	}
	writeSite(b, port, pgrestDirectives(authDSN, pool), []string{benchMaxCost})
	return fmt.Sprintf("http://127.0.0.1:%d", port), nil
}

// printCostGuard sets the cost guard variant against pgrest without a
// limit, cell by cell: throughput and p50 latency, ÷ pgrest's.
func printCostGuard(variants []*variant, rows []*cell) {
	g := indexOrNone(variants, guardName)
	if g < 0 {
		return
	}
	fmt.Printf("%-11s %4s  %-27s\n", "workload", "conc", "cost guard ÷ none")
	for _, r := range rows {
		fmt.Printf("%-11s %4d  rate %.3f, p50 %.2f\n", r.workload, r.conc, r.rate[g]/max(r.rate[0], 1),
			float64(r.p50s[g])/float64(max(r.p50s[0], 1)))
	}
	fmt.Println(strings.TrimSpace(`
Cost guard: pgrest with a db_max_cost no statement reaches (each request is explained first, then
run), over pgrest without one, in the same windows.`))
}
