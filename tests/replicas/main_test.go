// Package replicas tests pgrest's read replicas against a real streaming
// replica that the tests start (scripts/pg.sh replica-init: pg_basebackup
// -R from the throwaway primary): which requests run where (seen through
// pg_is_in_recovery() in a function or view), writes reaching the replica,
// a replica that lags or stops being skipped with no failed request, and
// taken back once it has caught up or restarted.
package replicas

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

var (
	db      *pgresttest.DB
	replica *pgtest.Replica
	// authDSN and replicaAuthDSN connect as the authenticator to the
	// primary and to the replica; replicaSuperDSN as the superuser to the
	// replica.
	authDSN, replicaAuthDSN, replicaSuperDSN string
)

// whereSQL makes what tells the server that answered: pg_is_in_recovery()
// is true on the replica only.
const whereSQL = `
create table api.notes (id serial primary key, body text not null);
grant select, insert on api.notes to web_anon;
grant usage on sequence api.notes_id_seq to web_anon;
create view api.where_am_i as select pg_is_in_recovery() as in_recovery;
grant select on api.where_am_i to web_anon;
-- one row on the replica, none on the primary: a HEAD's count tells them apart
create view api.replica_rows as select 1 as one where pg_is_in_recovery();
grant select on api.replica_rows to web_anon;
create function api.in_recovery() returns boolean stable language sql as 'select pg_is_in_recovery()';
create function api.in_recovery_immutable() returns boolean immutable language sql as 'select pg_is_in_recovery()';
create function api.in_recovery_volatile() returns boolean volatile language sql as 'select pg_is_in_recovery()';
grant execute on function api.in_recovery(), api.in_recovery_immutable(), api.in_recovery_volatile() to web_anon;
`

func TestMain(m *testing.M) {
	db = pgresttest.MustSetUp("pgrest_replicas", pgresttest.ReadFixture,
		pgresttest.SQL("where am I", whereSQL))
	if err := startReplica(); err != nil {
		db.Abort("replicas", err)
	}
	db.Run(m)
}

func startReplica() error {
	var err error
	if replica, err = db.Cluster.StartReplica(); err != nil {
		return fmt.Errorf("starting a streaming replica: %w", err)
	}
	authDSN = db.DSNFor(fixtures.Authenticator, fixtures.AuthenticatorPassword)
	if replicaAuthDSN, err = replica.DSN(authDSN); err != nil {
		return err
	}
	if replicaSuperDSN, err = replica.DSN(db.SuperDSN); err != nil {
		return err
	}
	// The replica is a copy of the whole cluster, fixtures included, as
	// soon as it accepts connections in hot standby.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		n, err := pgresttest.QueryInt(ctx, replicaAuthDSN, "select count(*) from pg_proc where proname = 'in_recovery_volatile'")
		if err == nil && n == 1 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the replica has no copy of the fixtures after 30s: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// base is every server's configuration: the primary, the replica checked
// every 100ms.
func base() map[string]string {
	return map[string]string{
		"db_uri":                    pgresttest.Quote(authDSN),
		"db_replicas":               pgresttest.Quote(replicaAuthDSN),
		"db_replica_check_interval": "100ms",
		"db_schemas":                "api",
		"db_anon_role":              "web_anon",
	}
}
