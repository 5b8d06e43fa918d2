package reload

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// waitForListener waits until pgrest listens for reload notifications on
// the database at dsn: a notification sent before would be lost.
func waitForListener(t *testing.T, dsn string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		n := pgresttest.SQLInt(t, dsn, `select count(*) from pg_stat_activity
			where datname = current_database() and application_name = 'pgrest' and query ilike 'listen %'`)
		if n > 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("pgrest did not start listening for notifications within 10s")
}

// NOTIFY pgrst, 'reload schema' shows a new table in under a second, the
// first time and every time after: the requests between two reloads
// retire the statements of the last cache's generation, and the loader
// must not trip over that.
func TestNotifyReloadShowsANewTableWithinASecond(t *testing.T) {
	dsn := testDatabase(t, "pgrest_faults_reload_notify")
	// One connection: the loader and the requests share it, so any
	// statement a request's eviction drops is one the loader had.
	s := startServer(t, dsn, "db_pool 1")
	s.Get(t, "/items?limit=1").ExpectStatus(t, http.StatusOK)
	waitForListener(t, dsn)

	var worst time.Duration
	var all []time.Duration
	for round := 1; round <= 5; round++ {
		for i := range 20 { // requests of this generation prepare statements
			s.Get(t, fmt.Sprintf("/items?id=eq.%d", i+1)).ExpectStatus(t, http.StatusOK)
		}
		table := fmt.Sprintf("notified_%d", round)
		pgtest.Exec(t, dsn, fmt.Sprintf("create table api.%s (id int primary key); insert into api.%[1]s values (%d);", table, round))
		start := time.Now()
		pgtest.Exec(t, dsn, `notify pgrst, 'reload schema'`)
		for {
			res := s.Get(t, "/"+table)
			if res.Status == http.StatusOK {
				break
			}
			if res.Status != http.StatusNotFound {
				t.Errorf("round %d: GET /%s answered %d %s while reloading, want 404 until the reload, then 200",
					round, table, res.Status, res.Body)
			}
			if time.Since(start) > 15*time.Second {
				t.Fatalf("round %d: the new table is not visible 15s after NOTIFY", round)
			}
			time.Sleep(10 * time.Millisecond)
		}
		took := time.Since(start)
		all = append(all, took.Round(time.Millisecond))
		worst = max(worst, took)
	}
	t.Logf("NOTIFY to new table visible: %v (worst %s)", all, worst.Round(time.Millisecond))
	if worst >= time.Second {
		t.Errorf("a NOTIFY reload took %s to show a new table, want < 1s", worst.Round(time.Millisecond))
	}
}
