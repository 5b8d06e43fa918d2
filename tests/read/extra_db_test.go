package read

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// extraDB is a database of the package's cluster beside read.sql's, whose
// roles it uses, loaded with one fixture on first use: a fixture whose
// schema is api too cannot share read.sql's database.
type extraDB struct {
	name string
	sql  string
	// prepare, when set, runs before the database is made (installing an
	// extension the fixture needs, say).
	prepare func() error
	timeout time.Duration

	once sync.Once
	dsn  string
	err  error
}

// superDSN makes the database on first use and returns its superuser DSN.
func (x *extraDB) superDSN(t testing.TB) string {
	t.Helper()
	x.once.Do(func() {
		if x.prepare != nil {
			if x.err = x.prepare(); x.err != nil {
				return
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), x.timeout)
		defer cancel()
		dsn, err := db.Cluster.NewDatabase(ctx, x.name)
		if err == nil {
			err = pgtest.ExecSQL(ctx, dsn, x.sql)
		}
		x.dsn, x.err = dsn, err
	})
	if x.err != nil {
		t.Fatalf("loading the fixture of %s: %v", x.name, x.err)
	}
	return x.dsn
}

// appDSN is the DSN of the fixture's authenticator.
func (x *extraDB) appDSN(t testing.TB) string {
	t.Helper()
	return pgtest.DSNFor(x.superDSN(t), fixtures.Authenticator, fixtures.AuthenticatorPassword)
}
