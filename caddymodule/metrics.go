package caddymodule

import (
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/pgrest/caddy-pgrest/executor"
)

// pgrest's metrics, in Caddy's registry beside Caddy's own (served by the
// metrics handler and the admin API's /metrics). They are what PostgREST's
// /metrics offers, named caddy_pgrest_*, plus requests by action and
// status class and database errors by SQLSTATE class.
//
// The collectors are made once per process and registered in each config's
// registry: counters keep counting across config reloads, and handlers of
// several sites share them, as reverse_proxy's metrics do.
var metrics = struct {
	once sync.Once

	schemaLoads    *prometheus.CounterVec
	schemaLoadTime prometheus.Gauge
	poolWaiting    prometheus.Gauge
	poolTimeouts   prometheus.Counter
	jwtRequests    prometheus.Counter
	jwtHits        prometheus.Counter
	requests       *prometheus.CounterVec
	// requestsBy holds requests' counters by action and status class,
	// looked up once: a request then pays an array index, not the
	// label hashing and locking of WithLabelValues.
	requestsBy map[string]*[len(statusClasses)]prometheus.Counter
	dbErrors   *prometheus.CounterVec
	pool       *poolCollector
	// rateLimited counts requests a rate limit refused, by limit;
	// rateLimitStoreErrors the failed calls to the store (Redis).
	rateLimited          *prometheus.CounterVec
	rateLimitStoreErrors prometheus.Counter
	// costGuardRefused counts requests the query cost guard refused, by
	// the role whose db_max_cost they passed.
	costGuardRefused *prometheus.CounterVec
}{}

const metricsNamespace, metricsSubsystem = "caddy", "pgrest"

func initMetrics() {
	metrics.once.Do(func() {
		opts := func(name, help string) prometheus.Opts {
			return prometheus.Opts{Namespace: metricsNamespace, Subsystem: metricsSubsystem, Name: name, Help: help}
		}
		metrics.schemaLoads = prometheus.NewCounterVec(prometheus.CounterOpts(opts("schema_cache_loads_total",
			"Schema cache loads, by status: success or error.")), []string{"status"})
		metrics.schemaLoadTime = prometheus.NewGauge(prometheus.GaugeOpts(opts("schema_cache_load_seconds",
			"How long the last schema cache load took.")))
		metrics.poolWaiting = prometheus.NewGauge(prometheus.GaugeOpts(opts("db_pool_waiting",
			"Requests waiting for a pool connection.")))
		metrics.poolTimeouts = prometheus.NewCounter(prometheus.CounterOpts(opts("db_pool_timeouts_total",
			"Requests that waited db_pool_acquisition_timeout for a pool connection in vain.")))
		metrics.jwtRequests = prometheus.NewCounter(prometheus.CounterOpts(opts("jwt_cache_requests_total",
			"Tokens looked up in the JWT cache.")))
		metrics.jwtHits = prometheus.NewCounter(prometheus.CounterOpts(opts("jwt_cache_hits_total",
			"Tokens found in the JWT cache.")))
		metrics.requests = prometheus.NewCounterVec(prometheus.CounterOpts(opts("requests_total",
			"Requests answered, by action (read, write, rpc, root, options) and status class (2xx, 4xx, ...).")),
			[]string{"action", "code_class"})
		metrics.requestsBy = map[string]*[len(statusClasses)]prometheus.Counter{}
		for _, action := range []string{executor.ActionRead, executor.ActionWrite, executor.ActionRPC, executor.ActionRoot, executor.ActionOptions} {
			var byClass [len(statusClasses)]prometheus.Counter
			for i, class := range statusClasses {
				byClass[i] = metrics.requests.WithLabelValues(action, class)
			}
			metrics.requestsBy[action] = &byClass
		}
		metrics.dbErrors = prometheus.NewCounterVec(prometheus.CounterOpts(opts("db_errors_total",
			"Errors PostgreSQL raised while running requests, by SQLSTATE class (its first two characters).")),
			[]string{"sqlstate_class"})
		metrics.rateLimited = prometheus.NewCounterVec(prometheus.CounterOpts(opts("rate_limited_total",
			"Requests a rate limit refused with 429 before they reached the database, by limit.")), []string{"limit"})
		metrics.rateLimitStoreErrors = prometheus.NewCounter(prometheus.CounterOpts(opts("rate_limit_store_errors_total",
			"Calls to the rate limit store (Redis) that failed; rate_limit_redis_failure says what the requests got.")))
		metrics.costGuardRefused = prometheus.NewCounterVec(prometheus.CounterOpts(opts("cost_guard_refused_total",
			"Requests the query cost guard refused with 400 before their statement ran, by the role whose db_max_cost they passed.")),
			[]string{"role"})
		metrics.pool = &poolCollector{
			max: prometheus.NewDesc(prometheus.BuildFQName(metricsNamespace, metricsSubsystem, "db_pool_max"),
				"The most connections the pools may open (db_pool, summed over pools).", nil, nil),
			size: prometheus.NewDesc(prometheus.BuildFQName(metricsNamespace, metricsSubsystem, "db_pool_connections"),
				"Connections open in the pools.", nil, nil),
			available: prometheus.NewDesc(prometheus.BuildFQName(metricsNamespace, metricsSubsystem, "db_pool_available"),
				"Idle connections in the pools, ready to serve a request.", nil, nil),
		}
	})
}

// registerMetrics puts pgrest's collectors in a config's registry.
func registerMetrics(registry *prometheus.Registry) error {
	initMetrics()
	for _, c := range []prometheus.Collector{
		metrics.schemaLoads, metrics.schemaLoadTime, metrics.poolWaiting, metrics.poolTimeouts,
		metrics.jwtRequests, metrics.jwtHits, metrics.requests, metrics.dbErrors, metrics.pool,
		metrics.rateLimited, metrics.rateLimitStoreErrors, metrics.costGuardRefused,
	} {
		// Each handler of the config registers; the second time is no
		// error (the same collector is already there).
		var already prometheus.AlreadyRegisteredError
		if err := registry.Register(c); err != nil && !(errors.As(err, &already) && already.ExistingCollector == c) {
			return err
		}
	}
	return nil
}

// metricsObserver feeds executor events into the collectors.
type metricsObserver struct{}

func (metricsObserver) SchemaCacheLoaded(took time.Duration, err error) {
	status := "success"
	if err != nil {
		status = "error"
	}
	metrics.schemaLoads.WithLabelValues(status).Inc()
	metrics.schemaLoadTime.Set(took.Seconds())
}

func (metricsObserver) AcquireStarted() { metrics.poolWaiting.Inc() }

func (metricsObserver) AcquireEnded(timedOut bool) {
	metrics.poolWaiting.Dec()
	if timedOut {
		metrics.poolTimeouts.Inc()
	}
}

func jwtCacheLookup(hit bool) {
	metrics.jwtRequests.Inc()
	if hit {
		metrics.jwtHits.Inc()
	}
}

// countRequest counts an answered request and, for an error PostgreSQL
// raised, its SQLSTATE class.
func countRequest(o executor.Outcome) {
	if byClass, ok := metrics.requestsBy[o.Action]; ok && o.Status >= 100 && o.Status < 600 {
		byClass[o.Status/100-1].Inc()
	} else {
		metrics.requests.WithLabelValues(o.Action, statusClass(o.Status)).Inc()
	}
	if o.FromDatabase && len(o.Code) == 5 {
		metrics.dbErrors.WithLabelValues(o.Code[:2]).Inc()
	}
}

// statusClasses are the labels of status classes, made once.
var statusClasses = [...]string{"1xx", "2xx", "3xx", "4xx", "5xx"}

func statusClass(status int) string {
	if c := status/100 - 1; c >= 0 && c < len(statusClasses) {
		return statusClasses[c]
	}
	return strconv.Itoa(status)
}

// poolCollector reports the pools of the live handlers when scraped, each
// pool once however many handlers share it.
type poolCollector struct {
	max, size, available *prometheus.Desc
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.max
	ch <- c.size
	ch <- c.available
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	seen := map[*pgxpool.Pool]bool{}
	var max, size, available float64
	for _, h := range liveHandlers() {
		if seen[h.pool] {
			continue
		}
		seen[h.pool] = true
		st := h.pool.Stat()
		max += float64(st.MaxConns())
		size += float64(st.TotalConns())
		available += float64(st.IdleConns())
	}
	ch <- prometheus.MustNewConstMetric(c.max, prometheus.GaugeValue, max)
	ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, size)
	ch <- prometheus.MustNewConstMetric(c.available, prometheus.GaugeValue, available)
}
