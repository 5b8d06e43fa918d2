package read

import (
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
)

// reprDB is the database of fixtures.RepresentationsSQL: its schema is
// api too.
var reprDB = &extraDB{name: "pgrest_read_repr", sql: fixtures.RepresentationsSQL, timeout: time.Minute}

// startReprServer serves the representations fixture (schema api) as
// startServer serves read.sql, changed by lines.
func startReprServer(t testing.TB, lines ...string) *server {
	t.Helper()
	base := []string{"db_uri " + reprDB.appDSN(t), "db_schemas api"}
	return startServer(t, append(base, lines...)...)
}

// specDB is the database of fixtures.PostgRESTSpecSQL: PostgREST's own
// test tables in its schema test.
var specDB = &extraDB{name: "pgrest_read_spec", sql: fixtures.PostgRESTSpecSQL, timeout: time.Minute}

// startSpecServer serves PostgREST's test tables (schema test) as
// startServer serves read.sql, changed by lines.
func startSpecServer(t testing.TB, lines ...string) *server {
	t.Helper()
	base := []string{"db_uri " + specDB.appDSN(t), "db_schemas test"}
	return startServer(t, append(base, lines...)...)
}

// startSpecRollbackServer is startSpecServer ending every transaction in a
// rollback unless Prefer: tx=commit asks otherwise, as PostgREST's spec
// runs (baseCfg's db-tx-end rollback-allow-override): the spec's writes
// leave PostgREST's tables as they were.
func startSpecRollbackServer(t testing.TB, lines ...string) *server {
	t.Helper()
	return startSpecServer(t, append([]string{"db_tx_end rollback-allow-override"}, lines...)...)
}

// startSpreadsServer serves PostgREST's test tables (schema test, where
// postgrest_spec.sql holds the tables of its spread specs) with PostgREST's
// test configuration (baseCfg of its SpecHelper.hs: aggregates off),
// changed by lines.
func startSpreadsServer(t testing.TB, lines ...string) *server {
	t.Helper()
	return startSpecServer(t, append([]string{"-db_aggregates_enabled"}, lines...)...)
}
