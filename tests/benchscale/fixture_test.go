package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The bench's fixture loads as setUp loads it: make bench is no test, so
// nothing else would notice a fixture that no longer loads.
func TestFixtureLoads(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cluster, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Stop()
	super, err := cluster.NewDatabase(ctx, "pgrest_benchscale_fixture")
	if err != nil {
		t.Fatal(err)
	}
	if err := pgtest.ExecSQL(ctx, super, fixtures.RolesSQL+fmt.Sprintf(fixtureSQL, 10)); err != nil {
		t.Fatal(err)
	}
}
