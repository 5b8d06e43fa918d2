package reload

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// reloadWith loads s's Caddyfile again with subdirective lines changed
// (old line to new line), as `caddy reload` of an edited Caddyfile does:
// same address, a new handler provisioned before the old one is cleaned
// up.
func reloadWith(t *testing.T, caddyfile string, changes map[string]string) error {
	t.Helper()
	text := caddyfile
	for from, to := range changes {
		line := "\t\t" + from + "\n"
		if !strings.Contains(text, line) {
			t.Fatalf("the Caddyfile has no %q:\n%s", line, text)
		}
		text = strings.Replace(text, line, "\t\t"+to+"\n", 1)
	}
	cfg, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(text), nil)
	if err != nil {
		return err
	}
	return caddy.Load(cfg, true)
}

// Each config serves for configTime and at least requestsPerConfig
// requests before the next reload: the load overlaps every reload,
// however slowly the machine serves it.
const (
	configTime        = 900 * time.Millisecond
	requestsPerConfig = 20
)

// reloadUnderLoad runs a load on s while it reloads the config reloads
// times, changing lines as change(i) says, and checks no request failed.
func reloadUnderLoad(t *testing.T, s *pgresttest.Server, reloads int, change func(i int) map[string]string) {
	t.Helper()
	r, stop := startLoad(s, 4, []string{"/items?order=id&limit=5", "/items?id=eq.7", "/items?select=name&id=lt.20"})
	for i := range reloads + 1 {
		time.Sleep(configTime)
		if err := waitForRequests(r, r.answered()+requestsPerConfig); err != nil {
			stop()
			t.Fatalf("before reload %d: %v", i+1, err)
		}
		if i == reloads {
			break
		}
		if err := reloadWith(t, s.Caddyfile, change(i)); err != nil {
			stop()
			t.Fatalf("reload %d: %v", i+1, err)
		}
	}
	stop()
	n, kinds := r.failed()
	t.Logf("%d config reloads under load: %d requests, %d not 2xx or failed, %d sent again after a connection reset",
		reloads, r.total, n, r.resent)
	if n != 0 {
		t.Errorf("%d of %d requests failed across the reloads, want 0: %s", n, r.total, kinds)
	}
}

// waitForRequests waits until the load has answered n requests, for a
// minute at most.
func waitForRequests(r *loadResult, n int) error {
	for deadline := time.Now().Add(time.Minute); r.answered() < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return fmt.Errorf("the load answered %d requests in a minute, want %d", r.answered(), n)
		}
	}
	return nil
}

// Config reloads under load answer every request: the new handler serves
// the schema cache the old one loaded, and the statements the reload
// retires are pgrest's own only, so the schema loader never trips on a
// statement dropped under it.
func TestConfigReloadsUnderLoadFailNoRequest(t *testing.T) {
	dsn := testDatabase(t, "pgrest_faults_reload_reload")
	s := startServer(t, dsn, "db_max_rows 1000", "db_pool 4")
	s.Get(t, "/items?limit=1").ExpectStatus(t, 200)

	const reloads = 10
	reloadUnderLoad(t, s, reloads, func(i int) map[string]string {
		return map[string]string{"db_max_rows 1000": fmt.Sprintf("db_max_rows %d", 50+i)}
	})
	// The last config is the one serving: its db_max_rows caps a read.
	res := s.Get(t, "/items?select=id")
	if rows := res.JSON(t).([]any); res.Status != 200 || len(rows) != 50+reloads-1 {
		t.Errorf("after the reloads a read got %d with %d rows, want 200 with the last db_max_rows, %d", res.Status, len(rows), 50+reloads-1)
	}
}
