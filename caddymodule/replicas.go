package caddymodule

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/pgrest/caddy-pgrest/executor"
	"github.com/pgrest/caddy-pgrest/executor/dbpool"
	"github.com/pgrest/caddy-pgrest/executor/replicas"
)

// ReplicaSettings are pgrest's read replicas, which PostgREST does not
// have. They are embedded in Handler, so their JSON keys sit beside the
// others.
type ReplicaSettings struct {
	// Connection strings of read replicas of db_uri's database (streaming
	// replicas in hot standby), for the same authenticator role.
	// Read-only requests (GET and HEAD reads, calls of STABLE and
	// IMMUTABLE functions) run on them in turn, each replica with a pool
	// of db_pool connections; writes, VOLATILE calls, `Prefer: tx=commit`
	// and requests sent with `Cache-Control: no-cache` run on the primary,
	// and so does every read while no replica is up. Placeholders
	// allowed.
	DBReplicas []string `json:"db_replicas,omitempty"`

	// A replica further behind the primary than this serves no reads
	// until it has caught up. Default: 5s.
	DBReplicaMaxLag caddy.Duration `json:"db_replica_max_lag,omitempty"`

	// How often each replica's health and lag are checked; a replica
	// that failed comes back into use at the first check it passes.
	// Default: 1s.
	DBReplicaCheckInterval caddy.Duration `json:"db_replica_check_interval,omitempty"`
}

// takeReplicas resolves db_replicas and takes a reference to the shared
// replica set they make with pc's pool settings; nil when there are none.
// Every replica must log in as the authenticator of db_uri: requests
// switch roles from it, and pgrest refuses to run requests as it, which
// only holds for the user it knows.
func (h *Handler) takeReplicas(repl *caddy.Replacer, dbURI, authenticator string, pc dbpool.Config,
	logger *zap.Logger) (*replicas.Set, replicasKey, error) {
	if len(h.DBReplicas) == 0 {
		return nil, replicasKey{}, nil
	}
	cfg := replicas.Config{Pool: pc, PrimaryURI: dbURI,
		MaxLag: time.Duration(h.DBReplicaMaxLag), CheckInterval: time.Duration(h.DBReplicaCheckInterval)}
	for i, raw := range h.DBReplicas {
		uri, err := resolveSecret(repl, "db_replicas", raw)
		if err == nil {
			uri, err = readAtFile("db_replicas", uri)
		}
		if err != nil {
			return nil, replicasKey{}, err
		}
		user, err := executor.AuthenticatorOfURI(uri)
		if err != nil {
			return nil, replicasKey{}, fmt.Errorf("db_replicas: replica %d: %w", i+1, err)
		}
		if user != authenticator {
			return nil, replicasKey{}, fmt.Errorf("db_replicas: replica %d logs in as %q, db_uri as %q: "+
				"replicas must log in as the authenticator of db_uri", i+1, user, authenticator)
		}
		cfg.URIs = append(cfg.URIs, uri)
	}
	key := replicasKeyFor(cfg)
	val, _, err := replicaSets.LoadOrNew(key, func() (caddy.Destructor, error) {
		// Like the pool, the set outlives this config; the usage pool's
		// Destruct ends it.
		rs, err := replicas.New(cfg, logger)
		if err != nil {
			return nil, err
		}
		rs.Start()
		return &sharedReplicas{Set: rs}, nil
	})
	if err != nil {
		return nil, key, fmt.Errorf("creating the read replicas: %w", err)
	}
	return val.(*sharedReplicas).Set, key, nil
}

// releaseReplicas gives back a reference takeReplicas took.
func releaseReplicas(rs *replicas.Set, key replicasKey) error {
	if rs == nil {
		return nil
	}
	if _, err := replicaSets.Delete(key); err != nil {
		return fmt.Errorf("closing the read replicas: %w", err)
	}
	return nil
}

// replicaSets holds the replica sets shared by handlers with the same
// replicas and pool settings, across config reloads, as pools are.
var replicaSets = caddy.NewUsagePool()

// replicasKey identifies a replica set: a digest of its configuration,
// so no password is kept as a map key.
type replicasKey [sha256.Size]byte

func replicasKeyFor(cfg replicas.Config) replicasKey {
	h := sha256.New()
	pk := poolKeyFor(cfg.Pool)
	h.Write(pk[:])
	_ = binary.Write(h, binary.BigEndian, int64(cfg.MaxLag))
	_ = binary.Write(h, binary.BigEndian, int64(cfg.CheckInterval))
	for _, s := range append([]string{cfg.PrimaryURI}, cfg.URIs...) {
		h.Write([]byte(s))
		h.Write([]byte{0}) // a connection string holding NUL is refused by pgx
	}
	return replicasKey(h.Sum(nil))
}

// sharedReplicas is a replica set as the usage pool holds it.
type sharedReplicas struct {
	*replicas.Set
	closed atomic.Bool
}

// Destruct stops the health checks and closes the replicas' pools once
// the last handler using them is gone.
func (s *sharedReplicas) Destruct() error {
	s.Set.Close()
	s.closed.Store(true)
	return nil
}

// replicaCollector reports the replicas of the live handlers when
// scraped, each replica set once however many handlers share it.
type replicaCollector struct {
	up, lag, reads, failures, primaryReads *prometheus.Desc
}

var replicaMetrics = func() *replicaCollector {
	desc := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(metricsNamespace, metricsSubsystem, name), help, labels, nil)
	}
	return &replicaCollector{
		up:       desc("db_replica_up", "1 while the read replica serves reads (it answers, is in recovery and lags no more than db_replica_max_lag), else 0.", "replica"),
		lag:      desc("db_replica_lag_seconds", "How far behind the primary the read replica was at its last check; -1 when it did not answer.", "replica"),
		reads:    desc("db_replica_reads_total", "Read transactions the replica served.", "replica"),
		failures: desc("db_replica_failures_total", "Read transactions that failed on the replica (it was down or going away) and ran elsewhere.", "replica"),
		primaryReads: desc("db_replica_primary_reads_total",
			"Read transactions that could have run on a replica but ran on the primary, no replica being up."),
	}
}()

func (c *replicaCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.up, c.lag, c.reads, c.failures, c.primaryReads} {
		ch <- d
	}
}

func (c *replicaCollector) Collect(ch chan<- prometheus.Metric) {
	seen := map[*replicas.Set]bool{}
	var primaryReads float64
	for _, lh := range liveHandlers() {
		rs := lh.live.replicas
		if rs == nil || seen[rs] {
			continue
		}
		seen[rs] = true
		primaryReads += float64(rs.PrimaryReads())
		for _, st := range rs.Status() {
			up := 0.0
			if st.Up {
				up = 1
			}
			lag := -1.0
			if st.Lag >= 0 {
				lag = st.Lag.Seconds()
			}
			ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, up, st.Name)
			ch <- prometheus.MustNewConstMetric(c.lag, prometheus.GaugeValue, lag, st.Name)
			ch <- prometheus.MustNewConstMetric(c.reads, prometheus.CounterValue, float64(st.Reads), st.Name)
			ch <- prometheus.MustNewConstMetric(c.failures, prometheus.CounterValue, float64(st.Failures), st.Name)
		}
	}
	ch <- prometheus.MustNewConstMetric(c.primaryReads, prometheus.CounterValue, primaryReads)
}

// registerReplicaMetrics puts the replica collector in a config's
// registry, as registerMetrics does the others.
func registerReplicaMetrics(registry *prometheus.Registry) error {
	var already prometheus.AlreadyRegisteredError
	if err := registry.Register(replicaMetrics); err != nil && !(errors.As(err, &already) && already.ExistingCollector == replicaMetrics) {
		return err
	}
	return nil
}

var _ caddy.Destructor = (*sharedReplicas)(nil)
