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
	deadline := time.Now().Add(reloadTimeout)
	for time.Now().Before(deadline) {
		n := pgresttest.SQLInt(t, dsn, `select count(*) from pg_stat_activity
			where datname = current_database() and application_name = 'pgrest' and query ilike 'listen %'`)
		if n > 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("pgrest did not start listening for notifications within %s", reloadTimeout)
}

// reloadTimeout bounds the waits for pgrest to listen and for a reload to
// show. How soon a NOTIFY shows is a figure of make bench
// (tests/benchscale), not of these tests: on a shared machine a
// wall-clock bound fails for the neighbours' sake.
const reloadTimeout = 30 * time.Second

// NOTIFY pgrst, 'reload schema' shows a new table, the first time and
// every time after: the table is unknown (404) until the NOTIFY, then
// served. The requests between two reloads retire the statements of the
// last cache's generation, and the loader must not trip over that.
func TestNotifyReloadShowsANewTableEveryTime(t *testing.T) {
	dsn := testDatabase(t, "pgrest_faults_reload_notify")
	// One connection: the loader and the requests share it, so any
	// statement a request's eviction drops is one the loader had.
	s := startServer(t, dsn, "db_pool 1")
	s.Get(t, "/items?limit=1").ExpectStatus(t, http.StatusOK)
	waitForListener(t, dsn)

	for round := 1; round <= 5; round++ {
		for i := range 20 { // requests of this generation prepare statements
			s.Get(t, fmt.Sprintf("/items?id=eq.%d", i+1)).ExpectStatus(t, http.StatusOK)
		}
		table := fmt.Sprintf("notified_%d", round)
		pgtest.Exec(t, dsn, fmt.Sprintf("create table api.%s (id int primary key); insert into api.%[1]s values (%d);", table, round))
		// Not served before the NOTIFY: what follows shows the NOTIFY's
		// reload, not one that happened anyway.
		s.Get(t, "/"+table).ExpectError(t, http.StatusNotFound, "PGRST205")
		pgtest.Exec(t, dsn, `notify pgrst, 'reload schema'`)
		polls := 0
		for deadline := time.Now().Add(reloadTimeout); ; time.Sleep(10 * time.Millisecond) {
			res := s.Get(t, "/"+table)
			if res.Status == http.StatusOK {
				break
			}
			polls++
			if res.Status != http.StatusNotFound {
				t.Errorf("round %d: GET /%s answered %d %s while reloading, want 404 until the reload, then 200",
					round, table, res.Status, res.Body)
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the new table is not visible %s after NOTIFY", round, reloadTimeout)
			}
		}
		t.Logf("round %d: %d answers of 404 between the NOTIFY and the new table", round, polls)
	}
}
