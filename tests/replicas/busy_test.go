package replicas

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// busySQL makes what keeps a replica busy: reads that wait on the replica
// only (the primary answers them at once), one until the test releases
// the advisory lock it waits for there (pgtest.HoldLock: advisory locks
// work on a standby), others holding a lock on a table that the primary
// then locks, which its replay on the replica cannot take until the read
// is cancelled.
const busySQL = `
create function api.wait_on_replica(key bigint) returns boolean stable language sql
  as 'select pg_is_in_recovery() from pg_advisory_xact_lock_shared(case when pg_is_in_recovery() then key else 0 end)';
create table api.conflict_rows (id int primary key);
insert into api.conflict_rows values (1);
grant select on api.conflict_rows to web_anon;
-- reads the table, then sleeps on the replica holding its lock
create function api.read_rows_then_sleep() returns boolean stable language sql as $$
  select pg_is_in_recovery()
  from (select count(*) from api.conflict_rows) n,
       pg_sleep(case when pg_is_in_recovery() then 20 else 0 end)
$$;
-- the same in a subtransaction (an exception block): a recovery conflict
-- there ends the replica's connection, not only the statement
create function api.read_rows_then_sleep_in_subtransaction() returns boolean stable language plpgsql as $$
begin
  begin
    perform count(*) from api.conflict_rows;
    perform pg_sleep(case when pg_is_in_recovery() then 20 else 0 end);
  exception when division_by_zero then
    null;
  end;
  return pg_is_in_recovery();
end
$$;
grant execute on function api.wait_on_replica(bigint), api.read_rows_then_sleep(),
  api.read_rows_then_sleep_in_subtransaction() to web_anon;
`

var (
	busyFixturesOnce sync.Once
	// busyFixturesErr is the load's error, which every test using the
	// fixtures meets, not only the first.
	busyFixturesErr error
)

// busyFixtures loads busySQL on the primary, once, and waits until the
// replica has replayed it.
func busyFixtures(t *testing.T) {
	t.Helper()
	busyFixturesOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		busyFixturesErr = pgtest.ExecSQL(ctx, db.SuperDSN, busySQL)
	})
	if busyFixturesErr != nil {
		t.Fatal(busyFixturesErr)
	}
	waitUntil(t, "the replica has the fixtures", func() bool {
		n, err := pgresttest.QueryInt(context.Background(), replicaAuthDSN,
			"select count(*) from pg_proc where proname = 'read_rows_then_sleep_in_subtransaction'")
		return err == nil && n == 1
	})
}

// asyncGet sends a GET in a goroutine; the channel gets its response, or
// nil after a transport error, which it reports through t.
func asyncGet(t *testing.T, s *pgresttest.Server, path string) <-chan *pgresttest.Response {
	done := make(chan *pgresttest.Response, 1)
	go func() {
		res, err := s.Try(&http.Client{Timeout: time.Minute}, "GET", path, "")
		if err != nil {
			t.Errorf("GET %s: %v", path, err)
		}
		done <- res
	}()
	return done
}

// waitActiveOnReplica waits until a statement calling function runs on
// the replica.
func waitActiveOnReplica(t *testing.T, function string) {
	t.Helper()
	waitUntil(t, function+" running on the replica", func() bool {
		n, err := pgresttest.QueryInt(context.Background(), replicaSuperDSN,
			"select count(*) from pg_stat_activity where state = 'active' and wait_event = 'PgSleep' and query like '%' || $1 || '%'",
			function)
		return err == nil && n == 1
	})
}

// replicaCounters are the replica metrics a read moves.
type replicaCounters struct {
	up, reads, failures, primaryReads, poolTimeouts float64
}

// handedOverOnce checks the counters after one read the replica could
// not run for a reason of the moment (what): the replica still up, no
// failure counted for it, and the read counted as the primary's.
func handedOverOnce(t *testing.T, before, now replicaCounters, what string) {
	t.Helper()
	if now.up != 1 {
		t.Errorf("db_replica_up = %v after %s, want 1", now.up, what)
	}
	if got := now.failures - before.failures; got != 0 {
		t.Errorf("db_replica_failures_total rose by %v: %s is no failure", got, what)
	}
	if got := now.primaryReads - before.primaryReads; got != 1 {
		t.Errorf("db_replica_primary_reads_total rose by %v, want 1", got)
	}
}

func readReplicaCounters(t *testing.T, metrics string) replicaCounters {
	t.Helper()
	label := `replica="127.0.0.1:` + replica.Port() + `/pgrest_replicas"`
	return replicaCounters{
		up:           metric(t, metrics, "caddy_pgrest_db_replica_up", label),
		reads:        metric(t, metrics, "caddy_pgrest_db_replica_reads_total", label),
		failures:     metric(t, metrics, "caddy_pgrest_db_replica_failures_total", label),
		primaryReads: metric(t, metrics, "caddy_pgrest_db_replica_primary_reads_total", ""),
		poolTimeouts: metric(t, metrics, "caddy_pgrest_db_pool_timeouts_total", ""),
	}
}

// busyBase is base with a replica checked only every 30s: a replica
// wrongly taken out of rotation by a read stays out for the rest of the
// test, instead of being taken back by the next check a moment later.
func busyBase(lines ...string) map[string]string {
	return pgresttest.Directives(base(), append([]string{"db_replica_check_interval 30s"}, lines...)...)
}

// holdReplica makes a read of api.wait_on_replica hold a connection of
// the replica's pool until release is called; its response then comes on
// the channel.
func holdReplica(t *testing.T, s *pgresttest.Server) (release func(), answer <-chan *pgresttest.Response) {
	t.Helper()
	return pgresttest.HoldConnections(t, s, replicaSuperDSN, "wait_on_replica", 7, 1)
}

func TestAReplicaWithEveryConnectionBusyHandsTheReadToThePrimary(t *testing.T) {
	busyFixtures(t)
	// db_pool is the size of each replica's pool too.
	api, metrics := serveWithMetrics(t, busyBase("db_pool 1", "db_pool_acquisition_timeout 500ms"))
	s := &pgresttest.Server{URL: api}
	// On a loaded machine the first schema load can outlast the 500 ms a
	// request waits for it (503 PGRST002).
	waitUntil(t, "the schema cache loaded", func() bool {
		return s.Get(t, "/rpc/in_recovery").Status != http.StatusServiceUnavailable
	})
	waitUntil(t, "the replica taken into use", func() bool { return onReplica(t, s) })
	before := readReplicaCounters(t, metrics)

	// The replica's one connection is held until the read below is in.
	release, slow := holdReplica(t, s)
	res := s.Get(t, "/rpc/in_recovery")
	// Not PGRST003: the replica's pool timing out is no timeout of the
	// request's, which the primary serves.
	if inRecovery(t, res) {
		t.Fatal("the read ran on the busy replica")
	}
	during := readReplicaCounters(t, metrics)

	release()
	if r := <-slow; r != nil && !inRecovery(t, r) {
		t.Error("the slow read did not run on the replica")
	}
	// Still in rotation: the next read runs on the replica at once.
	if !onReplica(t, s) {
		t.Error("the busy replica was taken out of rotation")
	}
	after := readReplicaCounters(t, metrics)

	handedOverOnce(t, before, during, "a busy replica")
	if got := after.poolTimeouts - before.poolTimeouts; got != 0 {
		t.Errorf("db_pool_timeouts_total rose by %v: only the primary's pool times a request out", got)
	}
	if got := after.reads - before.reads; got != 2 {
		t.Errorf("db_replica_reads_total rose by %v, want 2 (the slow read and the last)", got)
	}
}

// A read that finds the replica's connections all in use waits for one,
// up to db_pool_acquisition_timeout, before the primary takes it over: a
// connection released while it waits serves it on the replica.
func TestAReadWaitsForABusyReplicasConnection(t *testing.T) {
	busyFixtures(t)
	api, metrics := serveWithMetrics(t, busyBase("db_pool 1", "db_pool_acquisition_timeout 1m"))
	s := &pgresttest.Server{URL: api}
	waitUntil(t, "the replica taken into use", func() bool { return onReplica(t, s) })

	release, slow := holdReplica(t, s)
	read := asyncGet(t, s, "/rpc/in_recovery")
	waitUntil(t, "the read waiting for the replica's connection", func() bool {
		return metric(t, metrics, "caddy_pgrest_db_pool_waiting", "") >= 1
	})
	release()
	if r := <-read; r != nil && !inRecovery(t, r) {
		t.Error("the read went to the primary: it did not wait for the replica's connection")
	}
	if r := <-slow; r != nil && !inRecovery(t, r) {
		t.Error("the slow read did not run on the replica")
	}
}

func TestARecoveryConflictRunsTheReadAgainOnThePrimary(t *testing.T) {
	busyFixtures(t)
	// The replica's replay waits this long for the reads in its way, then
	// cancels them (30s by default).
	pgtest.Exec(t, replicaSuperDSN, "alter system set max_standby_streaming_delay = '200ms'")
	pgresttest.SQLInt(t, replicaSuperDSN, "select 1 from pg_reload_conf()")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := pgtest.ExecSQL(ctx, replicaSuperDSN, "alter system reset max_standby_streaming_delay"); err != nil {
			t.Error(err)
		}
		pgresttest.SQLInt(t, replicaSuperDSN, "select 1 from pg_reload_conf()")
	})
	waitUntil(t, "max_standby_streaming_delay in effect on the replica", func() bool {
		n, err := pgresttest.QueryInt(context.Background(), replicaSuperDSN,
			"select setting::int from pg_settings where name = 'max_standby_streaming_delay'")
		return err == nil && n == 200
	})

	const lockConflicts = "select confl_lock from pg_stat_database_conflicts where datname = current_database()"
	conflicts := pgresttest.SQLInt(t, replicaSuperDSN, lockConflicts)
	for _, tt := range []struct{ name, function string }{
		// ERROR 40001, canceling statement due to conflict with recovery
		{"the statement cancelled", "read_rows_then_sleep"},
		// FATAL 40001, terminating connection due to conflict with recovery
		{"the connection ended", "read_rows_then_sleep_in_subtransaction"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			api, metrics := serveWithMetrics(t, busyBase())
			s := &pgresttest.Server{URL: api}
			waitUntil(t, "the replica taken into use", func() bool { return onReplica(t, s) })
			before := readReplicaCounters(t, metrics)

			read := asyncGet(t, s, "/rpc/"+tt.function)
			waitActiveOnReplica(t, tt.function)
			// ACCESS EXCLUSIVE on the primary is replayed on the replica,
			// where the sleeping read holds the table's ACCESS SHARE.
			pgtest.Exec(t, db.SuperDSN, "begin; lock table api.conflict_rows in access exclusive mode; commit")
			res := <-read
			if res == nil {
				return
			}
			// Not cancelled, the read would have ended on the replica
			// after its 20 s sleep, answered there.
			if inRecovery(t, res) {
				t.Fatal("the read was answered by the replica")
			}
			if !onReplica(t, s) {
				t.Error("the replica was taken out of rotation")
			}
			handedOverOnce(t, before, readReplicaCounters(t, metrics), "a recovery conflict")
		})
	}
	// What cancelled the replica's reads was a lock conflict each time.
	// A backend reports it when it next goes idle for long or exits, as
	// the replica's connections did when their servers stopped.
	waitUntil(t, "two lock conflicts counted by the replica", func() bool {
		n, err := pgresttest.QueryInt(context.Background(), replicaSuperDSN, lockConflicts)
		return err == nil && n >= conflicts+2
	})
}
