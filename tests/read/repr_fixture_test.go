package read

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// reprDB is the database of fixtures.RepresentationsSQL, made once in the
// package's cluster beside the read fixture: its schema is api too, so it
// cannot share read.sql's database.
var reprDB struct {
	once sync.Once
	dsn  string
	err  error
}

// startReprServer serves the representations fixture (schema api) as
// startServer serves read.sql, changed by lines.
func startReprServer(t testing.TB, lines ...string) *server {
	t.Helper()
	reprDB.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		dsn, err := db.Cluster.NewDatabase(ctx, "pgrest_read_repr")
		if err == nil {
			err = pgtest.ExecSQL(ctx, dsn, fixtures.RepresentationsSQL)
		}
		reprDB.dsn, reprDB.err = dsn, err
	})
	if reprDB.err != nil {
		t.Fatalf("loading representations.sql: %v", reprDB.err)
	}
	base := []string{
		"db_uri " + pgtest.DSNFor(reprDB.dsn, fixtures.Authenticator, fixtures.AuthenticatorPassword),
		"db_schemas api",
	}
	return startServer(t, append(base, lines...)...)
}
