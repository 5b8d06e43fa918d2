package read

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// sideDB is a database made in the package's cluster beside read.sql's,
// once, on first use, for a fixture whose schemas would clash with
// read.sql's.
type sideDB struct {
	name, sql string
	once      sync.Once
	dsn       string
	err       error
}

// start serves d's fixture with schemas exposed, as startServer serves
// read.sql, changed by lines.
func (d *sideDB) start(t testing.TB, schemas string, lines ...string) *server {
	t.Helper()
	d.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		dsn, err := db.Cluster.NewDatabase(ctx, d.name)
		if err == nil {
			err = pgtest.ExecSQL(ctx, dsn, d.sql)
		}
		d.dsn, d.err = dsn, err
	})
	if d.err != nil {
		t.Fatalf("loading the fixture of %s: %v", d.name, d.err)
	}
	base := []string{
		"db_uri " + pgtest.DSNFor(d.dsn, fixtures.Authenticator, fixtures.AuthenticatorPassword),
		"db_schemas " + schemas,
	}
	return startServer(t, append(base, lines...)...)
}

// reprDB is the database of fixtures.RepresentationsSQL: its schema is
// api too.
var reprDB = &sideDB{name: "pgrest_read_repr", sql: fixtures.RepresentationsSQL}

// startReprServer serves the representations fixture (schema api) as
// startServer serves read.sql, changed by lines.
func startReprServer(t testing.TB, lines ...string) *server {
	t.Helper()
	return reprDB.start(t, "api", lines...)
}

// specDB is the database of fixtures.PostgRESTSpecSQL: PostgREST's own
// test tables in its schema test.
var specDB = &sideDB{name: "pgrest_read_spec", sql: fixtures.PostgRESTSpecSQL}

// startSpecServer serves PostgREST's test tables (schema test) as
// startServer serves read.sql, changed by lines.
func startSpecServer(t testing.TB, lines ...string) *server {
	t.Helper()
	return specDB.start(t, "test", lines...)
}
