package reload

import (
	"context"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/executor/dbpool"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The schema loader keeps loading on a connection whose prepared
// statements were all dropped under it, as a pre-request function's
// DEALLOCATE ALL or a pooler's reset would: it relies on no statement
// outliving its query.
func TestSchemaLoadSurvivesDroppedStatements(t *testing.T) {
	dsn := testDatabase(t, "pgrest_faults_reload_loader")
	app := pgtest.DSNFor(dsn, fixtures.Authenticator, fixtures.AuthenticatorPassword)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := dbpool.New(ctx, dbpool.Config{URI: app, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for round := 1; round <= 3; round++ {
		conn, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c, err := schemacache.Load(ctx, conn, []string{"api"})
		if err == nil {
			if _, ok := c.Relation("api", "items"); !ok {
				t.Errorf("round %d: the cache has no api.items", round)
			}
		} else {
			t.Errorf("round %d: loading after the statements were dropped: %v", round, err)
		}
		if _, err := conn.Exec(ctx, "deallocate all"); err != nil {
			t.Fatal(err)
		}
		conn.Release()
	}
}
