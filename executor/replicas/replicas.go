// Package replicas keeps pgrest's read replicas: a connection pool each,
// a background health check that takes a replica out of rotation while
// it is down or lags, and the turn in which reads take them. Which
// request may read from a replica, and running it there, is the
// executor's.
package replicas

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"

	"github.com/pgrest/caddy-pgrest/executor/dbpool"
)

// Defaults of the replica settings.
const (
	// DefaultMaxLag is db_replica_max_lag when it is not given: a
	// replica further behind the primary than this serves no reads.
	DefaultMaxLag = 5 * time.Second
	// DefaultCheckInterval is db_replica_check_interval when it is
	// not given: how often each replica's health and lag are checked.
	DefaultCheckInterval = time.Second
)

// Config is what makes a set of read replicas.
type Config struct {
	// URIs are db_replicas, placeholders resolved: one connection string
	// per replica, for the authenticator role.
	URIs []string
	// Pool is the pool settings of each replica (its URI is replaced by
	// the replica's): each replica has a pool of its own, as large as the
	// primary's.
	Pool dbpool.Config
	// PrimaryURI is db_uri: the health checker reads the primary's WAL
	// position through it, to tell how far each replica is behind.
	PrimaryURI string
	// MaxLag is db_replica_max_lag; CheckInterval is
	// db_replica_check_interval. Zero takes the defaults.
	MaxLag        time.Duration
	CheckInterval time.Duration
}

// Set is the read replicas of a handler: a pool each, checked in the
// background (see health.go), and taken in turn (Up) by the reads that
// may run on a replica. It outlives config
// reloads, as the primary's pool does; Close ends it.
type Set struct {
	replicas []*Replica
	// next is the round-robin counter: each routed read starts looking
	// at the replica after the one the previous read started at.
	next atomic.Uint32
	// primaryReads counts the reads that could have run on a replica
	// but ran on the primary, none being available (or every one having
	// failed them).
	primaryReads atomic.Uint64

	maxLag, interval time.Duration
	primary          *pgx.ConnConfig
	logger           *zap.Logger
	stop             context.CancelFunc
	done             chan struct{}
	closeOnce        sync.Once
}

// Replica is one read replica: its pool and what the health checker last
// found.
type Replica struct {
	// Name is the replica's host:port/database, with no credentials: what
	// logs and metrics call it.
	Name string
	pool *pgxpool.Pool
	// check is the replica's connection string for the health checker's
	// own connection.
	check *pgx.ConnConfig

	// up says the replica serves reads: its last check succeeded, it is in
	// recovery and it lags no more than the set's MaxLag, and no read
	// failed on it since.
	up atomic.Bool
	// lag is the last lag measured, in nanoseconds; -1 before the first
	// measurement.
	lag atomic.Int64
	// reads counts the transactions it served; failures those that
	// failed on it and were run elsewhere.
	reads, failures atomic.Uint64
	// checked says a health check has run; only the checker reads and
	// writes it.
	checked bool
}

// New makes the replicas' pools (without connecting, as
// dbpool.New) and checks their connection strings. Call Start to begin the
// health checks; until a replica's first check succeeds it serves no read.
func New(cfg Config, logger *zap.Logger) (*Set, error) {
	if logger == nil {
		logger = zap.NewNop()
	}
	if len(cfg.URIs) == 0 {
		return nil, errors.New("db_replicas: no replica")
	}
	primary, err := pgx.ParseConfig(cfg.PrimaryURI)
	if err != nil {
		return nil, fmt.Errorf("parsing db_uri: %w", err)
	}
	checkerConfig(primary)
	s := &Set{
		maxLag:   cfg.MaxLag,
		interval: cfg.CheckInterval,
		primary:  primary,
		logger:   logger,
		done:     make(chan struct{}),
	}
	if s.maxLag <= 0 {
		s.maxLag = DefaultMaxLag
	}
	if s.interval <= 0 {
		s.interval = DefaultCheckInterval
	}
	for i, uri := range cfg.URIs {
		check, err := pgx.ParseConfig(uri)
		if err != nil {
			s.closePools()
			return nil, fmt.Errorf("parsing replica %d of db_replicas: %w", i+1, err)
		}
		checkerConfig(check)
		pc := cfg.Pool
		pc.URI = uri
		pool, err := dbpool.New(context.Background(), pc)
		if err != nil {
			s.closePools()
			return nil, fmt.Errorf("replica %d of db_replicas: %w", i+1, err)
		}
		r := &Replica{Name: replicaName(check), pool: pool, check: check}
		r.lag.Store(-1)
		s.replicas = append(s.replicas, r)
	}
	return s, nil
}

// checkerConfig readies a health checker's connection settings: simple
// queries (they run through PgBouncer too, and prepare nothing) and a
// name that tells them apart in pg_stat_activity.
func checkerConfig(c *pgx.ConnConfig) {
	c.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	if c.RuntimeParams == nil {
		c.RuntimeParams = map[string]string{}
	}
	c.RuntimeParams["application_name"] = "pgrest replica check"
	if c.ConnectTimeout == 0 || c.ConnectTimeout > replicaCheckTimeout {
		c.ConnectTimeout = replicaCheckTimeout
	}
}

// replicaName is host:port/database of a connection string.
func replicaName(c *pgx.ConnConfig) string {
	return net.JoinHostPort(c.Host, strconv.Itoa(int(c.Port))) + "/" + c.Database
}

// Start begins checking the replicas, every check interval until Close.
// The first check runs at once.
func (s *Set) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	go s.checkLoop(ctx)
}

// Close stops the health checks and closes the replicas' pools, waiting
// for connections in use to be released.
func (s *Set) Close() {
	s.closeOnce.Do(func() {
		if s.stop != nil {
			s.stop()
			<-s.done
		}
		s.closePools()
	})
}

func (s *Set) closePools() {
	for _, r := range s.replicas {
		r.pool.Close()
	}
}

// Status is what the health checker last found of a replica, and
// what it served.
type Status struct {
	Name string `json:"name"`
	Up   bool   `json:"up"`
	// Lag is how far behind the primary it was at the last check; -1
	// when it was not measured (the replica did not answer).
	Lag      time.Duration `json:"lag"`
	Reads    uint64        `json:"reads"`
	Failures uint64        `json:"failures"`
	// Pool is the replica's pool: its size, open and idle connections.
	PoolMax, PoolOpen, PoolIdle int32
}

// Status lists the replicas in the order of db_replicas.
func (s *Set) Status() []Status {
	out := make([]Status, len(s.replicas))
	for i, r := range s.replicas {
		st := r.pool.Stat()
		out[i] = Status{Name: r.Name, Up: r.up.Load(), Lag: time.Duration(r.lag.Load()),
			Reads: r.reads.Load(), Failures: r.failures.Load(),
			PoolMax: st.MaxConns(), PoolOpen: st.TotalConns(), PoolIdle: st.IdleConns()}
	}
	return out
}

// PrimaryReads counts the reads that could have run on a replica but ran
// on the primary, none being available.
func (s *Set) PrimaryReads() uint64 { return s.primaryReads.Load() }

// Up yields the replicas that are up, each once, in turn: each call
// starts at the replica after the one the previous call started at.
func (s *Set) Up() iter.Seq[*Replica] {
	n := len(s.replicas)
	start := int(s.next.Add(1) % uint32(n))
	return func(yield func(*Replica) bool) {
		for i := range n {
			r := s.replicas[(start+i)%n]
			if r.up.Load() && !yield(r) {
				return
			}
		}
	}
}

// ReadOnPrimary counts a read that could have run on a replica but ran
// on the primary, none being available (or every one having failed it).
func (s *Set) ReadOnPrimary() { s.primaryReads.Add(1) }

// Pool is the replica's connection pool.
func (r *Replica) Pool() *pgxpool.Pool { return r.pool }

// Served counts a read transaction the replica served.
func (r *Replica) Served() { r.reads.Add(1) }

// MarkDown takes a replica out of rotation after a read failed on it:
// the next successful health check puts it back.
func (s *Set) MarkDown(r *Replica, err error) {
	r.failures.Add(1)
	if r.up.CompareAndSwap(true, false) {
		s.logger.Warn("read replica failed a read; reads go elsewhere until it passes a health check",
			zap.String("replica", r.Name), zap.Error(err))
		// Its idle connections most likely broke together (a restart).
		r.pool.Reset()
	}
}
