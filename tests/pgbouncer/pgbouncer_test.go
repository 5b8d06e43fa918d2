// Package pgbouncer checks pgrest behind PgBouncer in transaction pooling
// mode, started by the tests (Debian's pgbouncer, installed by
// scripts/pg.sh when missing): requests reach PostgreSQL through it with
// db_prepared_statements false, and the reload listener connects around
// it with db_channel_uri. The whole read, write and RPC suites run through
// it too (make test, PGREST_TEST_PGBOUNCER=1).
package pgbouncer

import (
	"context"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

var db *pgresttest.DB

func TestMain(m *testing.M) {
	// Every server of this package goes through PgBouncer.
	os.Setenv(pgresttest.EnvPgBouncer, "1")
	db = pgresttest.MustSetUp("pgrest_pgbouncer", pgresttest.ReadFixture,
		pgresttest.SQL("writes", `
create table api.notes (id serial primary key, body text not null);
grant select, insert on api.notes to web_anon;
grant usage on sequence api.notes_id_seq to web_anon;
create function api.in_recovery() returns boolean stable language sql as 'select pg_is_in_recovery()';
grant execute on function api.in_recovery() to web_anon;`))
	db.Run(m)
}

// bouncerStats reads PgBouncer's transaction count for the database, from
// its admin console (simple protocol only).
func bouncerStats(t *testing.T, s *pgresttest.Server) int64 {
	t.Helper()
	via, err := db.Cluster.ViaPgBouncer(db.SuperDSN)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := pgx.ParseConfig(via)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = "pgbouncer"
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("PgBouncer's admin console: %v", err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SHOW STATS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var total int64
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		fields := rows.FieldDescriptions()
		var name string
		var xacts int64
		for i, f := range fields {
			switch f.Name {
			case "database":
				name, _ = vals[i].(string)
			case "total_xact_count":
				// PgBouncer's console sends its counters as numeric.
				if n, ok := vals[i].(pgtype.Numeric); ok {
					if v, err := n.Int64Value(); err == nil {
						xacts = v.Int64
					}
				}
			}
		}
		if name == "pgrest_pgbouncer" {
			total += xacts
		}
	}
	return total
}

func TestRequestsGoThroughPgBouncer(t *testing.T) {
	s := pgresttest.Start(t, map[string]string{
		"db_uri":       pgresttest.Quote(db.DSNFor(fixtures.Authenticator, fixtures.AuthenticatorPassword)),
		"db_schemas":   "api",
		"db_anon_role": fixtures.AnonRole,
	})
	if got := s.Caddyfile; !containsAll(got, "db_prepared_statements false", "db_channel_uri") {
		t.Fatalf("the server does not run as PgBouncer's transaction mode needs:\n%s", got)
	}
	waitServed(t, s, "/clients?id=eq.1")
	before := bouncerStats(t, s)
	for range 20 {
		s.Get(t, "/clients?select=id,name&id=eq.1").ExpectStatus(t, http.StatusOK)
		s.Do(t, http.MethodPost, "/notes", `{"body":"through the pooler"}`, "Content-Type", "application/json").ExpectStatus(t, http.StatusCreated)
		s.Get(t, "/rpc/in_recovery").ExpectStatus(t, http.StatusOK)
	}
	// PgBouncer counts transactions when it writes its stats (every few
	// seconds at most): wait for the 60 requests' transactions.
	eventually(t, 30*time.Second, "PgBouncer did not see pgrest's transactions", func() bool {
		return bouncerStats(t, s)-before >= 60
	})
	if n := pgresttest.SQLInt(t, db.SuperDSN, "select count(*) from api.notes where body = 'through the pooler'"); n != 20 {
		t.Errorf("%d rows written through PgBouncer, want 20", n)
	}

	// The reload listener connects around PgBouncer: NOTIFY reaches it.
	execSQL(t, "create table api.after_start (id int primary key); grant select on api.after_start to web_anon; notify pgrst, 'reload schema'")
	eventually(t, 30*time.Second, "NOTIFY did not reload the schema cache", func() bool {
		res, err := s.Try(http.DefaultClient, http.MethodGet, "/after_start", "")
		return err == nil && res.Status == http.StatusOK
	})
}

func waitServed(t *testing.T, s *pgresttest.Server, path string) {
	t.Helper()
	eventually(t, 30*time.Second, path+" is not served", func() bool {
		res, err := s.Try(http.DefaultClient, http.MethodGet, path, "")
		return err == nil && res.Status == http.StatusOK
	})
}

func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
