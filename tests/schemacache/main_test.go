// Package schemacache tests pgrest's schema cache against a real
// PostgreSQL: the relationships resource embedding follows, derived from a
// fixture holding one of each shape, and a large schema loaded in one
// round trip (how long that takes is a figure of make bench).
package schemacache

import (
	"context"
	_ "embed"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

var (
	cluster *pgtest.Cluster
	// fixture is the cache of testdata/fixture.sql, exposing schema api,
	// loaded from the database at fixtureDSN (a superuser URL).
	fixture    *schemacache.Cache
	fixtureDSN string
)

// authenticator is a login role with no privileges on the exposed schemas:
// the schema cache must load as such a role.
const (
	authenticator         = "schemacache_authenticator"
	authenticatorPassword = "schemacache-secret"
)

//go:embed testdata/fixture.sql
var fixtureSQL string

func TestMain(m *testing.M) {
	cluster = pgtest.MustStart()
	if err := setUp(); err != nil {
		cluster.Abort("schemacache", err)
	}
	cluster.Run(m)
}

// setUp makes the authenticator and loads the fixture's cache, within a
// minute.
func setUp() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := pgtest.ExecSQL(ctx, cluster.SuperuserDSN(), fmt.Sprintf(`
do $$ begin
  if not exists (select from pg_roles where rolname = '%[1]s') then
    create role %[1]s login noinherit password '%[2]s';
  end if;
end $$`, authenticator, authenticatorPassword))
	if err != nil {
		return fmt.Errorf("creating the authenticator: %w", err)
	}
	fixture, err = loadFixture(ctx)
	return err
}

// loadFixture makes the fixture database, which lives until the cluster
// stops, and loads its cache.
func loadFixture(ctx context.Context) (*schemacache.Cache, error) {
	dsn, err := cluster.NewDatabase(ctx, "pgrest_schemacache")
	if err != nil {
		return nil, err
	}
	fixtureDSN = dsn
	if err := pgtest.ExecSQL(ctx, dsn, fixtureSQL); err != nil {
		return nil, fmt.Errorf("loading testdata/fixture.sql: %w", err)
	}
	conn, err := pgx.Connect(ctx, pgtest.DSNFor(dsn, authenticator, authenticatorPassword))
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	c, err := schemacache.Load(ctx, conn, []string{"api"})
	if err != nil {
		return nil, fmt.Errorf("loading the fixture's schema cache: %w", err)
	}
	return c, nil
}
