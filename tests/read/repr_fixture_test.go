package read

import (
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
)

// reprDB is the database of fixtures.RepresentationsSQL: its schema is api
// too, so it cannot share read.sql's database.
var reprDB = &extraDB{name: "pgrest_read_repr", sql: fixtures.RepresentationsSQL, timeout: time.Minute}

// startReprServer serves the representations fixture (schema api) as
// startServer serves read.sql, changed by lines.
func startReprServer(t testing.TB, lines ...string) *server {
	t.Helper()
	base := []string{"db_uri " + reprDB.appDSN(t), "db_schemas api"}
	return startServer(t, append(base, lines...)...)
}
