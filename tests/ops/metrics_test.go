package ops

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads the metrics site's /metrics with Prometheus's own text
// parser, as a Prometheus server would.
func (s *site) scrape(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	code, body := get(t, http.MethodGet, s.Metrics+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics = %d", code)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return families
}

// value is the sample of family name whose labels include labels (name,
// value pairs); ok is false when there is none.
func value(families map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	f, ok := families[name]
	if !ok {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, lp := range m.GetLabel() {
				if lp.GetName() == labels[i] && lp.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
}

func mustValue(t *testing.T, families map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	t.Helper()
	v, ok := value(families, name, labels...)
	if !ok {
		t.Fatalf("no sample of %s%v in /metrics", name, labels)
	}
	return v
}

func TestMetricsCountWhatPgrestDoes(t *testing.T) {
	s := startReadySite(t, "db_pool 3", "db_pool_acquisition_timeout 300ms")
	before := s.scrape(t)
	reads0, _ := value(before, "caddy_pgrest_requests_total", "action", "read", "code_class", "2xx")
	bad0, _ := value(before, "caddy_pgrest_requests_total", "action", "read", "code_class", "4xx")
	rpc0, _ := value(before, "caddy_pgrest_requests_total", "action", "rpc", "code_class", "2xx")
	data0, _ := value(before, "caddy_pgrest_db_errors_total", "sqlstate_class", "22")
	jwtReq0, _ := value(before, "caddy_pgrest_jwt_cache_requests_total")
	jwtHit0, _ := value(before, "caddy_pgrest_jwt_cache_hits_total")

	for range 5 {
		if code, _ := get(t, http.MethodGet, s.API+"/clients?id=eq.1"); code != 200 {
			t.Fatalf("read = %d", code)
		}
	}
	// 22P02: invalid input syntax for type integer, from PostgreSQL.
	if code, _ := get(t, http.MethodGet, s.API+"/clients?id=eq.not-a-number"); code != 400 {
		t.Fatalf("bad read = %d, want 400", code)
	}
	if code, _ := get(t, http.MethodGet, s.API+"/rpc/hold?seconds=0"); code != 200 {
		t.Fatalf("rpc = %d", code)
	}
	tok := token(t, jwt.MapClaims{"role": "webuser"})
	for range 3 {
		if code, _ := get(t, http.MethodGet, s.API+"/clients?id=eq.1", "Authorization", "Bearer "+tok); code != 200 {
			t.Fatalf("read with a token = %d", code)
		}
	}

	after := s.scrape(t)
	expectDelta(t, after, "caddy_pgrest_requests_total", reads0, 8, "action", "read", "code_class", "2xx")
	expectDelta(t, after, "caddy_pgrest_requests_total", bad0, 1, "action", "read", "code_class", "4xx")
	expectDelta(t, after, "caddy_pgrest_requests_total", rpc0, 1, "action", "rpc", "code_class", "2xx")
	expectDelta(t, after, "caddy_pgrest_db_errors_total", data0, 1, "sqlstate_class", "22")
	// Three lookups of one token: the first misses, the next two hit.
	expectDelta(t, after, "caddy_pgrest_jwt_cache_requests_total", jwtReq0, 3)
	expectDelta(t, after, "caddy_pgrest_jwt_cache_hits_total", jwtHit0, 2)

	// The admin API's /metrics serves the same registry.
	if code, body := get(t, http.MethodGet, s.Admin+"/metrics"); code != 200 || !strings.Contains(body, `caddy_pgrest_requests_total{action="read",code_class="2xx"}`) {
		t.Errorf("admin /metrics = %d without caddy_pgrest_requests_total", code)
	}
	if v := mustValue(t, after, "caddy_pgrest_schema_cache_loads_total", "status", "success"); v < 1 {
		t.Errorf("schema cache loads (success) = %v, want at least 1", v)
	}
	if v := mustValue(t, after, "caddy_pgrest_schema_cache_load_seconds"); v <= 0 || v > 60 {
		t.Errorf("schema cache load time = %v s", v)
	}
	if v := mustValue(t, after, "caddy_pgrest_db_pool_max"); v != 3 {
		t.Errorf("db_pool_max = %v, want 3 (db_pool 3)", v)
	}
	if open, avail := mustValue(t, after, "caddy_pgrest_db_pool_connections"), mustValue(t, after, "caddy_pgrest_db_pool_available"); open < 1 || open > 3 || avail > open {
		t.Errorf("pool connections = %v, available = %v: want 1..3 open, no more available than open", open, avail)
	}
}

func TestMetricsCountPoolTimeoutsAndWaiters(t *testing.T) {
	s := startReadySite(t, "db_pool 1", "db_pool_acquisition_timeout 300ms")
	timeouts0, _ := value(s.scrape(t), "caddy_pgrest_db_pool_timeouts_total")
	// One request holds the only connection for 1.5 s; while it does, a
	// second waits 300 ms in vain (504 PGRST003) and a scrape sees the
	// waiter.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		get(t, http.MethodGet, s.API+"/rpc/hold?seconds=1.5")
	}()
	sawWaiter := false
	eventually(t, 10*time.Second, "no request timed out waiting for the pool", func() bool {
		done := make(chan struct{})
		go func() {
			defer close(done)
			get(t, http.MethodGet, s.API+"/clients?id=eq.1")
		}()
		for range 5 {
			if v, _ := value(s.scrape(t), "caddy_pgrest_db_pool_waiting"); v >= 1 {
				sawWaiter = true
			}
		}
		<-done
		v, _ := value(s.scrape(t), "caddy_pgrest_db_pool_timeouts_total")
		return v >= timeouts0+1
	})
	wg.Wait()
	if !sawWaiter {
		t.Error("caddy_pgrest_db_pool_waiting never showed the waiting request")
	}
	if v := mustValue(t, s.scrape(t), "caddy_pgrest_db_pool_waiting"); v != 0 {
		t.Errorf("db_pool_waiting = %v after the load, want 0", v)
	}
}

func TestMetricsSurviveAConfigReload(t *testing.T) {
	s := startReadySite(t)
	for range 4 {
		get(t, http.MethodGet, s.API+"/clients?id=eq.1")
	}
	before := mustValue(t, s.scrape(t), "caddy_pgrest_requests_total", "action", "read", "code_class", "2xx")
	// The same Caddyfile loaded again is a reload: the handler is
	// provisioned anew and registers its collectors in the new config's
	// registry.
	s.Caddyfile += "\n"
	s.load(t)
	s.waitReady(t)
	get(t, http.MethodGet, s.API+"/clients?id=eq.1")
	families := s.scrape(t)
	after := mustValue(t, families, "caddy_pgrest_requests_total", "action", "read", "code_class", "2xx")
	if after != before+1 {
		t.Errorf("requests after the reload = %v, want %v: counters must carry on across reloads", after, before+1)
	}
	if n := len(families["caddy_pgrest_db_pool_max"].GetMetric()); n != 1 {
		t.Errorf("db_pool_max has %d samples, want 1", n)
	}
}

func expectDelta(t *testing.T, families map[string]*dto.MetricFamily, name string, before, delta float64, labels ...string) {
	t.Helper()
	if v := mustValue(t, families, name, labels...); v != before+delta {
		t.Errorf("%s%v = %v, want %v + %v", name, labels, v, before, delta)
	}
}
