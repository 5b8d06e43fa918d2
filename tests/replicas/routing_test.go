package replicas

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// onReplica asks the server where a GET of /rpc/in_recovery ran.
func onReplica(t *testing.T, s *pgresttest.Server, headers ...string) bool {
	t.Helper()
	return inRecovery(t, s.Get(t, "/rpc/in_recovery", headers...))
}

// inRecovery reads the boolean answer of a call of an in_recovery
// function, or of where_am_i.
func inRecovery(t *testing.T, res *pgresttest.Response) bool {
	t.Helper()
	res.ExpectStatus(t, http.StatusOK)
	switch body := strings.TrimSpace(string(res.Body)); body {
	case "true", `[{"in_recovery":true}]`:
		return true
	case "false", `[{"in_recovery":false}]`:
		return false
	default:
		t.Fatalf("%s: not an answer of where it ran", body)
	}
	return false
}

// waitLimit bounds every wait of these tests: it keeps a test from
// hanging, and is generous for a loaded machine. How soon a replica is
// taken into use, skipped or taken back is a figure of make bench
// (tests/benchscale), not of these tests.
const waitLimit = time.Minute

// waitUntil polls cond every 20ms until it holds, failing t after
// waitLimit.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(waitLimit); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, waitLimit)
		}
	}
}

func TestRequestsRunWhereTheyMay(t *testing.T) {
	s := pgresttest.Start(t, base())
	// A replica serves nothing before its first health check passes.
	waitUntil(t, "the replica taken into use", func() bool { return onReplica(t, s) })

	onTheReplica := []struct {
		name, method, path, body string
		headers                  []string
	}{
		{"a GET of a table or view", "GET", "/where_am_i", "", nil},
		{"a GET call of a STABLE function", "GET", "/rpc/in_recovery", "", nil},
		{"a GET call of an IMMUTABLE function", "GET", "/rpc/in_recovery_immutable", "", nil},
		{"a POST call of a STABLE function", "POST", "/rpc/in_recovery", "{}", nil},
		{"a POST call of an IMMUTABLE function", "POST", "/rpc/in_recovery_immutable", "{}", nil},
		{"a read with Prefer: tx=rollback", "GET", "/where_am_i", "", []string{"Prefer", "tx=rollback"}},
		{"a read with Cache-Control: max-age=60", "GET", "/where_am_i", "", []string{"Cache-Control", "max-age=60"}},
	}
	for _, tt := range onTheReplica {
		t.Run(tt.name+" runs on the replica", func(t *testing.T) {
			if !inRecovery(t, s.Do(t, tt.method, tt.path, tt.body, tt.headers...)) {
				t.Error("it ran on the primary")
			}
		})
	}
	onThePrimary := []struct {
		name, method, path, body string
		headers                  []string
	}{
		{"a GET call of a VOLATILE function", "GET", "/rpc/in_recovery_volatile", "", nil},
		{"a POST call of a VOLATILE function", "POST", "/rpc/in_recovery_volatile", "{}", nil},
		{"a read with Prefer: tx=commit", "GET", "/where_am_i", "", []string{"Prefer", "tx=commit"}},
		{"a read with Cache-Control: no-cache", "GET", "/where_am_i", "", []string{"Cache-Control", "no-cache"}},
		{"a read with Cache-Control: max-age=0", "GET", "/rpc/in_recovery", "", []string{"Cache-Control", "max-age=0"}},
		{"a read with Pragma: no-cache", "GET", "/where_am_i", "", []string{"Pragma", "no-cache"}},
	}
	for _, tt := range onThePrimary {
		t.Run(tt.name+" runs on the primary", func(t *testing.T) {
			if inRecovery(t, s.Do(t, tt.method, tt.path, tt.body, tt.headers...)) {
				t.Error("it ran on the replica")
			}
		})
	}
	t.Run("a HEAD read runs on the replica", func(t *testing.T) {
		res := s.Head(t, "/replica_rows", "Prefer", "count=exact")
		res.ExpectStatus(t, http.StatusOK)
		if got := res.Header.Get("Content-Range"); got != "0-0/1" {
			t.Errorf("Content-Range %q: the view has its one row only on the replica", got)
		}
		res = s.Head(t, "/replica_rows", "Prefer", "count=exact", "Cache-Control", "no-cache")
		if got := res.Header.Get("Content-Range"); got != "*/0" {
			t.Errorf("with no-cache: Content-Range %q, want the primary's */0", got)
		}
	})
	t.Run("a write runs on the primary", func(t *testing.T) {
		// The replica would refuse it: 25006, read-only transaction.
		res := s.Do(t, "POST", "/notes", `{"body":"routed"}`, "Prefer", "return=representation")
		res.ExpectStatus(t, http.StatusCreated)
	})
	t.Run("an answer does not depend on where it ran", func(t *testing.T) {
		a := s.Get(t, "/tasks?id=lt.4&order=id")
		b := s.Get(t, "/tasks?id=lt.4&order=id", "Cache-Control", "no-cache")
		a.ExpectStatus(t, http.StatusOK)
		if string(a.Body) != string(b.Body) || a.Header.Get("Content-Range") != b.Header.Get("Content-Range") {
			t.Errorf("replica %s %q, primary %s %q", a.Body, a.Header.Get("Content-Range"), b.Body, b.Header.Get("Content-Range"))
		}
		// A read's error is the replica's answer, not a reason to go
		// elsewhere: the same error as the primary's.
		a = s.Get(t, "/tasks?id=eq.not-a-number")
		b = s.Get(t, "/tasks?id=eq.not-a-number", "Cache-Control", "no-cache")
		a.ExpectError(t, http.StatusBadRequest, "22P02")
		if string(a.Body) != string(b.Body) {
			t.Errorf("replica %s, primary %s", a.Body, b.Body)
		}
	})
}

func TestWritesReachTheReplica(t *testing.T) {
	s := pgresttest.Start(t, base())
	waitUntil(t, "the replica taken into use", func() bool { return onReplica(t, s) })
	const path = "/notes?body=eq.caught-up&select=body"
	if got := string(s.Get(t, path).Body); got != "[]" {
		t.Fatalf("before the write: %s", got)
	}
	s.Do(t, "POST", "/notes", `{"body":"caught-up"}`).ExpectStatus(t, http.StatusCreated)
	// Read-your-writes: Cache-Control: no-cache reads from the primary,
	// which has the row the moment the write is answered.
	if got := string(s.Get(t, path, "Cache-Control", "no-cache").Body); got != `[{"body":"caught-up"}]` {
		t.Fatalf("read-your-writes right after the write: %s", got)
	}
	// Plain reads run on the replica, which has it once it has replayed
	// the write.
	waitUntil(t, "the write seen on the replica", func() bool {
		return string(s.Get(t, path).Body) == `[{"body":"caught-up"}]`
	})
	if !onReplica(t, s) {
		t.Fatal("the reads that saw the write did not run on the replica")
	}
}

// A replica whose replay is paused is skipped once it lags
// db_replica_max_lag, and taken back once it catches up. A second server
// on the same replica, which allows an hour of lag, keeps reading from it
// (and so does not see the write the replica has not replayed): the lag
// past db_replica_max_lag is what takes the replica out, not the pause or
// the write.
func TestALaggingReplicaIsSkippedUntilItCatchesUp(t *testing.T) {
	apis, _ := serveSites(t, pgresttest.Directives(base(), "db_replica_max_lag 1s"),
		pgresttest.Directives(base(), "db_replica_max_lag 1h"))
	s, tolerant := &pgresttest.Server{URL: apis[0]}, &pgresttest.Server{URL: apis[1]}
	for _, srv := range []*pgresttest.Server{s, tolerant} {
		waitUntil(t, "the replica taken into use", func() bool { return onReplica(t, srv) })
	}

	// An idle primary is no lag, however long since the replica last
	// replayed something.
	time.Sleep(2500 * time.Millisecond)
	if !onReplica(t, s) {
		t.Fatal("an idle primary made the replica lag")
	}

	pgresttest.SQLInt(t, replicaSuperDSN, "select 1 from pg_wal_replay_pause()")
	resumed := false
	t.Cleanup(func() {
		if !resumed {
			pgresttest.SQLInt(t, replicaSuperDSN, "select 1 from pg_wal_replay_resume()")
		}
	})
	s.Do(t, "POST", "/notes", `{"body":"while paused"}`).ExpectStatus(t, http.StatusCreated)
	waitUntil(t, "the paused replica skipped", func() bool { return !onReplica(t, s) })
	const path = "/notes?body=eq.while%20paused&select=body"
	if got := string(s.Get(t, path).Body); got != `[{"body":"while paused"}]` {
		t.Errorf("a read while the replica lags runs on the primary and sees the write: %s", got)
	}
	// The other server's checks, every 100ms too, have seen the same lag
	// by now, and a few more checks pass.
	time.Sleep(500 * time.Millisecond)
	if !onReplica(t, tolerant) {
		t.Error("the server allowing an hour of lag skipped the paused replica too")
	}
	if got := string(tolerant.Get(t, path).Body); got != "[]" {
		t.Errorf("the server allowing an hour of lag read %s, want the replica's [] from before the write", got)
	}

	pgresttest.SQLInt(t, replicaSuperDSN, "select 1 from pg_wal_replay_resume()")
	resumed = true
	waitUntil(t, "the replica taken back", func() bool { return onReplica(t, s) })
}

// A read that ends in rollback checks its deferred constraints first (SET
// CONSTRAINTS ALL IMMEDIATE, as PostgREST does); a hot standby allows it,
// so such a read still runs on the replica.
func TestARolledBackReadRunsOnTheReplica(t *testing.T) {
	s := pgresttest.Start(t, base(), "db_tx_end rollback")
	waitUntil(t, "the replica taken into use", func() bool { return onReplica(t, s) })
	if !inRecovery(t, s.Get(t, "/where_am_i")) {
		t.Error("it ran on the primary")
	}
}
