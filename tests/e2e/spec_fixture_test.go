package e2e

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// specDatabase makes, on first use, a database of the package's cluster
// holding fixtures.PostgRESTSpecSQL (PostgREST's own test fixture, schema
// test, beside v1 and v2), for the tests named after PostgREST's OpenAPI
// spec cases, and returns its superuser URL. It has a database of its own
// because it has schemas of the names testdata's have (private).
var specDatabase = sync.OnceValues(func() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dsn, err := e2eDB.Cluster.NewDatabase(ctx, "pgrest_e2e_spec")
	if err == nil {
		err = pgtest.ExecSQL(ctx, dsn, fixtures.PostgRESTSpecSQL)
	}
	return dsn, err
})

// startSpecServer serves PostgREST's fixture as its spec does, exposing
// schema test (the default) and v1, with the directives of startServer
// otherwise, changed by lines.
func startSpecServer(t *testing.T, lines ...string) *server {
	t.Helper()
	dsn, err := specDatabase()
	if err != nil {
		t.Fatalf("loading PostgREST's fixture: %v", err)
	}
	app := pgtest.DSNFor(dsn, fixtures.Authenticator, fixtures.AuthenticatorPassword)
	return startServer(t, append([]string{"db_uri " + app, "db_schemas test v1"}, lines...)...)
}

// specDoc fetches and validates the description of the spec server's
// schema test, or of the schema named by an Accept-Profile in headers.
func specDoc(t *testing.T, s *server, headers ...string) map[string]any {
	t.Helper()
	return describe(t, s, "test", headers...)
}
