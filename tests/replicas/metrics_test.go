package replicas

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// serveWithMetrics serves pgrest with dirs and Caddy's metrics handler,
// each on a site of its own, and returns their URLs.
func serveWithMetrics(t *testing.T, dirs map[string]string) (api, metrics string) {
	t.Helper()
	apis, metrics := serveSites(t, dirs)
	return apis[0], metrics
}

// serveSites serves pgrest once for each of sites (the subdirectives of
// each) and Caddy's metrics handler, each on a site of its own of one
// config, and returns their URLs.
func serveSites(t *testing.T, sites ...map[string]string) (apis []string, metrics string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("{\n\tadmin off\n\tauto_https off\n\tpersist_config off\n}\n")
	for _, dirs := range sites {
		port, err := pgresttest.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		names := make([]string, 0, len(dirs))
		for n := range dirs {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(&b, "http://127.0.0.1:%d {\n\tpgrest {\n", port)
		for _, n := range names {
			fmt.Fprintf(&b, "\t\t%s %s\n", n, dirs[n])
		}
		b.WriteString("\t}\n}\n")
		apis = append(apis, fmt.Sprintf("http://127.0.0.1:%d", port))
	}
	metricsPort, err := pgresttest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "http://127.0.0.1:%d {\n\tmetrics\n}\n", metricsPort)
	cfg, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(b.String()), nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stopping Caddy: %v", err)
		}
	})
	return apis, fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort)
}

// metric reads one sample of the exposition at url; labels is the
// sample's label text as written ("" for none).
func metric(t *testing.T, url, name, labels string) float64 {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if labels != "" {
		labels = "{" + labels + "}"
	}
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name+labels) + ` (\S+)$`)
	m := re.FindSubmatch(body)
	if m == nil {
		t.Fatalf("no %s%s in the metrics", name, labels)
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestReplicaMetrics(t *testing.T) {
	api, metrics := serveWithMetrics(t, base())
	s := &pgresttest.Server{URL: api}
	waitUntil(t, "the replica taken into use", func() bool { return onReplica(t, s) })
	label := `replica="127.0.0.1:` + replica.Port() + `/pgrest_replicas"`

	if up := metric(t, metrics, "caddy_pgrest_db_replica_up", label); up != 1 {
		t.Errorf("db_replica_up = %v, want 1", up)
	}
	if lag := metric(t, metrics, "caddy_pgrest_db_replica_lag_seconds", label); lag < 0 || lag > 5 {
		t.Errorf("db_replica_lag_seconds = %v", lag)
	}
	reads := metric(t, metrics, "caddy_pgrest_db_replica_reads_total", label)
	fallbacks := metric(t, metrics, "caddy_pgrest_db_replica_primary_reads_total", "")
	for range 5 {
		if !onReplica(t, s) {
			t.Fatal("a read ran on the primary")
		}
	}
	// Asked for, the primary is no fallback.
	onReplica(t, s, "Cache-Control", "no-cache")
	if got := metric(t, metrics, "caddy_pgrest_db_replica_reads_total", label); got != reads+5 {
		t.Errorf("db_replica_reads_total went from %v to %v, want 5 more", reads, got)
	}
	if got := metric(t, metrics, "caddy_pgrest_db_replica_primary_reads_total", ""); got != fallbacks {
		t.Errorf("db_replica_primary_reads_total went from %v to %v", fallbacks, got)
	}

	// The replica paused past db_replica_max_lag (5s by default) is down,
	// and the reads it would have served count as the primary's.
	pgresttest.SQLInt(t, replicaSuperDSN, "select 1 from pg_wal_replay_pause()")
	resumed := false
	t.Cleanup(func() {
		if !resumed {
			pgresttest.SQLInt(t, replicaSuperDSN, "select 1 from pg_wal_replay_resume()")
		}
	})
	s.Do(t, "POST", "/notes", `{"body":"metrics"}`).ExpectStatus(t, http.StatusCreated)
	waitUntil(t, "the replica down in the metrics", func() bool {
		return metric(t, metrics, "caddy_pgrest_db_replica_up", label) == 0
	})
	if lag := metric(t, metrics, "caddy_pgrest_db_replica_lag_seconds", label); lag <= 5 {
		t.Errorf("a replica down for its lag shows lag %v", lag)
	}
	if onReplica(t, s) {
		t.Fatal("a read ran on the lagging replica")
	}
	if got := metric(t, metrics, "caddy_pgrest_db_replica_primary_reads_total", ""); got < fallbacks+1 {
		t.Errorf("db_replica_primary_reads_total = %v, want more than %v", got, fallbacks)
	}
	pgresttest.SQLInt(t, replicaSuperDSN, "select 1 from pg_wal_replay_resume()")
	resumed = true
	waitUntil(t, "the replica taken back", func() bool { return onReplica(t, s) })
}
