package ops

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
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

// A request waiting for a pool connection shows in db_pool_waiting while
// it waits, and one that waits in vain counts in db_pool_timeouts_total.
// The only connection is held by a call until the test releases it, so
// the waits end when the test says, not in a race between a sleep and a
// scrape.
func TestMetricsCountPoolTimeoutsAndWaiters(t *testing.T) {
	t.Run("a request waiting for the pool shows in db_pool_waiting", func(t *testing.T) {
		// The wait would last a minute: the scrapes below meet it.
		s := startReadySite(t, "db_pool 1", "db_pool_acquisition_timeout 1m")
		release, held := pgresttest.HoldConnections(t, &pgresttest.Server{URL: s.API}, db.SuperDSN, "wait_for_lock", 11, 1)
		waiter := make(chan int, 1)
		go func() {
			res, err := client.Get(s.API + "/clients?id=eq.1")
			if err != nil {
				t.Errorf("the waiting request: %v", err)
				waiter <- 0
				return
			}
			res.Body.Close()
			waiter <- res.StatusCode
		}()
		eventually(t, 30*time.Second, "caddy_pgrest_db_pool_waiting never showed the waiting request", func() bool {
			v, _ := value(s.scrape(t), "caddy_pgrest_db_pool_waiting")
			return v >= 1
		})
		release()
		if code := <-waiter; code != http.StatusOK {
			t.Errorf("the waiting request got %d once the connection was released, want 200", code)
		}
		<-held
		if v := mustValue(t, s.scrape(t), "caddy_pgrest_db_pool_waiting"); v != 0 {
			t.Errorf("db_pool_waiting = %v after the wait, want 0", v)
		}
	})
	t.Run("a request that waits in vain counts in db_pool_timeouts_total", func(t *testing.T) {
		s := startReadySite(t, "db_pool 1", "db_pool_acquisition_timeout 300ms")
		timeouts0, _ := value(s.scrape(t), "caddy_pgrest_db_pool_timeouts_total")
		release, held := pgresttest.HoldConnections(t, &pgresttest.Server{URL: s.API}, db.SuperDSN, "wait_for_lock", 12, 1)
		if code, body := get(t, http.MethodGet, s.API+"/clients?id=eq.1"); code != http.StatusGatewayTimeout {
			t.Errorf("with the pool held: %d %s, want 504", code, body)
		}
		if v := mustValue(t, s.scrape(t), "caddy_pgrest_db_pool_timeouts_total"); v != timeouts0+1 {
			t.Errorf("db_pool_timeouts_total = %v, want %v", v, timeouts0+1)
		}
		release()
		<-held
	})
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
