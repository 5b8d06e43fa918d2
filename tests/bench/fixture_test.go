package main

import (
	"context"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// The bench's fixture loads as setUp loads it: make bench is no test, so
// nothing else would notice a fixture that no longer loads.
func TestFixtureLoads(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, err := pgresttest.SetUp(ctx, "pgrest_bench_fixture", pgresttest.SQL("the fixture", fixtureSQL(10)),
		pgresttest.SQL("the disconnect fixture", disconnectSQL))
	if err != nil {
		t.Fatal(err)
	}
	db.Cluster.Stop()
}
