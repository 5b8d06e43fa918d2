package ratelimit

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/redistest"
)

// With Redis stopped mid-run, rate_limit_redis_failure decides: open (the
// default) lets requests through uncounted and without RateLimit fields,
// closed refuses them with 503 PGRST194 and Retry-After, without
// reaching PostgreSQL; either way the failure is counted and logged; and
// once Redis is back, the limit counts again.
func TestRedisStoppedMidRunFollowsTheFailureMode(t *testing.T) {
	for _, mode := range []string{"open", "closed"} {
		t.Run(mode, func(t *testing.T) {
			redis := redistest.Start(t)
			sites, metricsURL := pgresttest.MetricsSite(t)
			logFile := filepath.Join(t.TempDir(), "caddy.log")
			s := pgresttest.StartWith(t, dirs(limit("shared", "key role", "rate 1/d", "burst 2"),
				"rate_limit_redis "+redis.URL, "rate_limit_redis_failure "+mode),
				pgresttest.Options{Sites: sites, LogFile: logFile})
			s.Get(t, "/items").Expect(t, http.StatusOK, `[{"id":1},{"id":2}]`,
				map[string]string{"RateLimit": `"shared";r=1;t=86400`})
			errorsBefore := pgresttest.Metric(t, metricsURL, "caddy_pgrest_rate_limit_store_errors_total")

			redis.Stop()
			resetStatements(t)
			for range 3 {
				res := s.Get(t, "/items")
				if mode == "open" {
					res.Expect(t, http.StatusOK, `[{"id":1},{"id":2}]`, map[string]string{"RateLimit": "", "RateLimit-Policy": ""})
				} else {
					res.ExpectErrorFields(t, http.StatusServiceUnavailable, "PGRST194",
						"Rate limits cannot be checked. Retrying the connection.", nil, nil)
					if got := res.Header.Get("Retry-After"); got != "1" {
						t.Errorf("Retry-After %q, want 1", got)
					}
				}
			}
			want := map[string]int64{"open": 3, "closed": 0}[mode]
			if got := itemReads(t); got != want {
				t.Errorf("pg_stat_statements counts %d reads of rl.items with Redis down, want %d", got, want)
			}
			if got := pgresttest.Metric(t, metricsURL, "caddy_pgrest_rate_limit_store_errors_total") - errorsBefore; got < 1 {
				t.Errorf("caddy_pgrest_rate_limit_store_errors_total rose by %v, want at least 1", got)
			}
			log, err := os.ReadFile(logFile)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(log), `"msg":"the rate limit store (Redis) failed`) ||
				!strings.Contains(string(log), `"rate_limit_redis_failure":"`+mode+`"`) {
				t.Errorf("no log line of the store's failure naming rate_limit_redis_failure %s", mode)
			}

			// Redis back (empty: it kept nothing), the limit counts again.
			redis.Start(t)
			waitFor(t, func() bool {
				return s.Get(t, "/items").Header.Get("RateLimit") != ""
			}, "the limit to count again once Redis is back")
			s.Get(t, "/items").ExpectStatus(t, http.StatusOK)
			s.Get(t, "/items").ExpectError(t, http.StatusTooManyRequests, "PGRST193")
		})
	}
}
