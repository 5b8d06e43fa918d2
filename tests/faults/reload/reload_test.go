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

// reloadUnderLoad runs a load on s while it reloads the config reloads
// times, changing lines as change(i) says, and checks no request failed.
func reloadUnderLoad(t *testing.T, s *pgresttest.Server, reloads int, change func(i int) map[string]string) {
	t.Helper()
	stop := make(chan struct{})
	done := make(chan *loadResult)
	go func() {
		done <- runLoad(s, 4, []string{"/items?order=id&limit=5", "/items?id=eq.7", "/items?select=name&id=lt.20"}, stop)
	}()
	start := time.Now()
	var reloadTimes []time.Duration
	for i := range reloads {
		time.Sleep(900 * time.Millisecond)
		t0 := time.Now()
		if err := reloadWith(t, s.Caddyfile, change(i)); err != nil {
			close(stop)
			<-done
			t.Fatalf("reload %d: %v", i+1, err)
		}
		reloadTimes = append(reloadTimes, time.Since(t0).Round(time.Millisecond))
	}
	time.Sleep(500 * time.Millisecond)
	close(stop)
	r := <-done
	n, kinds := r.failed()
	t.Logf("%d config reloads in %s under load: %d requests, %d not 2xx or failed, %d sent again after a connection reset, slowest %s; reloads took %v",
		reloads, time.Since(start).Round(time.Millisecond), r.total, n, r.resent, r.slowest.Round(time.Millisecond), reloadTimes)
	if r.total < 100 {
		t.Errorf("only %d requests ran; the load did not load", r.total)
	}
	if n != 0 {
		t.Errorf("%d of %d requests failed across the reloads, want 0: %s", n, r.total, kinds)
	}
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
