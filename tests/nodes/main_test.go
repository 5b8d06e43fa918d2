// Package nodes tests several pgrest nodes, each a Caddy process of its
// own, on one database: a schema reload (NOTIFY pgrst, 'reload schema')
// reaches every node, and a rolling restart behind Caddy's reverse_proxy,
// with active health checks on /ready, loses no request.
package nodes

import (
	"os"
	"testing"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// runAsCaddy makes the test binary run Caddy's command line instead of the
// tests: every node is this binary started again.
const runAsCaddy = "PGREST_NODES_TEST_RUN_CADDY"

var db *pgresttest.DB

func TestMain(m *testing.M) {
	if os.Getenv(runAsCaddy) == "1" {
		caddycmd.Main()
		return
	}
	db = pgresttest.MustSetUp("pgrest_nodes", pgresttest.ReadFixture)
	db.Run(m)
}
