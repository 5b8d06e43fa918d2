// Package schemasource loads and holds the schema cache of one database
// and set of schemas: the first load, the reloads asked for, retries with
// backoff while the database is away, and the wait of a request that
// finds no cache yet. It knows nothing of requests beyond that wait.
package schemasource

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/dbpool"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// Backoff between failed schema cache loads (and, in the executor,
// between reconnects of the reload listener). PostgREST backs off up to 32
// seconds and tries again when a request comes in; pgrest does both with
// a one-second cap, so the API is back at most about a second after the
// database, however long it was away.
const (
	minRetry = 250 * time.Millisecond
	maxRetry = time.Second
)

// requestRetryInterval is how soon after a failed load a request may ask
// for another one. Within it, requests are told the failure just seen:
// during an outage the database gets at most a few attempts a second,
// however many requests come in.
const requestRetryInterval = 200 * time.Millisecond

// Source loads and holds the schema cache of one database and set
// of schemas. Executors that read the same database through the same pool
// share one, across config reloads too: a new config starts with the
// cache the old one loaded, rather than refusing requests until it has
// loaded its own.
type Source struct {
	pool           *pgxpool.Pool
	schemas        []string
	acquireTimeout time.Duration
	logger         *zap.Logger

	// cache is the current schema cache; nil until the first load.
	cache atomic.Pointer[schemacache.Cache]
	// cacheErr is why the last load failed, nil after a success.
	cacheErr atomic.Pointer[apierr.Error]
	// sessionUser is the session user the server reported; nil until the
	// first load.
	sessionUser atomic.Pointer[string]
	// reloads asks the loader for a new cache.
	reloads chan struct{}

	mu sync.Mutex
	// attempted is true once a load has ended, finished when the last
	// one did; running is true while one runs. done is closed when the
	// running or next load ends, then replaced.
	attempted bool
	running   bool
	finished  time.Time
	done      chan struct{}

	stop    context.CancelFunc
	stopped chan struct{}

	// observer, when set, is told of every load.
	observer LoadObserver
	// loadErr is the full cause of the last failed load, for operators
	// (readiness in the admin API); nil after a success. Clients are told
	// cacheErr, which says less.
	loadErr atomic.Pointer[string]
	// warnedOfLoggedParameters is set once the warning that PostgreSQL
	// logs statement parameters was given (see statement_log.go).
	warnedOfLoggedParameters atomic.Bool
}

// New makes a source reading schemas through pool. It does
// not touch the database until Start.
func New(pool *pgxpool.Pool, schemas []string, acquireTimeout time.Duration, logger *zap.Logger) *Source {
	if logger == nil {
		logger = zap.NewNop()
	}
	if acquireTimeout <= 0 {
		acquireTimeout = 10 * time.Second
	}
	return &Source{
		pool:           pool,
		schemas:        schemas,
		acquireTimeout: acquireTimeout,
		logger:         logger,
		reloads:        make(chan struct{}, 1),
		done:           make(chan struct{}),
	}
}

// Seed starts s with the cache from holds, when s has none yet: a source
// made for a new pool of the same database and schemas serves at once
// what the old one loaded, while Start loads its own in the background.
// The cache is immutable, so sharing it is safe.
func (s *Source) Seed(from *Source) {
	if c := from.cache.Load(); c != nil {
		s.cache.CompareAndSwap(nil, c)
	}
	if su := from.sessionUser.Load(); su != nil {
		s.sessionUser.CompareAndSwap(nil, su)
	}
}

// Start loads the schema cache and keeps reloading it when asked, until
// ctx is done or Close is called.
func (s *Source) Start(ctx context.Context) {
	ctx, s.stop = context.WithCancel(ctx)
	s.stopped = make(chan struct{})
	s.Reload()
	go func() {
		defer close(s.stopped)
		s.loop(ctx)
	}()
}

// Close stops the loader and waits for it to end.
func (s *Source) Close() {
	if s.stop == nil {
		return
	}
	s.stop()
	<-s.stopped
}

// Reload asks for the schema cache to be rebuilt. The current cache keeps
// serving until the new one is ready.
func (s *Source) Reload() {
	select {
	case s.reloads <- struct{}{}:
	default: // a reload is already pending
	}
}

// loop loads the schema cache whenever a reload is asked for and retries
// failed loads with backoff; a reload request cuts the wait short.
func (s *Source) loop(ctx context.Context) {
	retry := minRetry
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.reloads:
		}
		for {
			err := s.attempt(ctx)
			if err == nil || ctx.Err() != nil {
				retry = minRetry
				break
			}
			s.logger.Error("loading the schema cache", zap.Error(err), zap.Duration("retry_in", retry))
			select {
			case <-ctx.Done():
				return
			case <-time.After(retry):
			case <-s.reloads:
			}
			retry = min(retry*2, maxRetry)
		}
	}
}

// attempt runs one load and wakes the requests waiting for it.
func (s *Source) attempt(ctx context.Context) error {
	s.mu.Lock()
	s.running = true
	s.mu.Unlock()
	start := time.Now()
	err := s.load(ctx)
	if s.observer != nil && ctx.Err() == nil {
		s.observer.SchemaCacheLoaded(time.Since(start), err)
	}
	if err != nil {
		msg := err.Error()
		s.loadErr.Store(&msg)
	} else {
		s.loadErr.Store(nil)
	}
	s.mu.Lock()
	s.running, s.attempted, s.finished = false, true, time.Now()
	close(s.done)
	s.done = make(chan struct{})
	s.mu.Unlock()
	return err
}

// loadTimeout bounds one load. A source outlives config reloads, so a
// load stuck behind a lock would otherwise hold back every later reload
// for good; a large catalog loads in seconds.
const loadTimeout = time.Minute

// load reads the catalog and swaps the new cache in.
func (s *Source) load(ctx context.Context) error {
	start := time.Now()
	ctx, cancelLoad := context.WithTimeout(ctx, loadTimeout)
	defer cancelLoad()
	actx, cancel := context.WithTimeout(ctx, s.acquireTimeout)
	conn, err := s.pool.Acquire(actx)
	cancel()
	if err != nil {
		var connErr *pgconn.ConnectError
		if errors.As(err, &connErr) {
			// The full cause, with the connection parameters the
			// client's answer leaves out (see dbpool.ConnectionCause).
			s.logger.Error("cannot connect to the database", zap.Error(err))
		}
		s.cacheErr.Store(cacheFailure(err))
		return err
	}
	defer conn.Release()
	c, err := schemacache.Load(ctx, conn, s.schemas)
	c, err = s.keepRoleLimits(c, err)
	if err != nil {
		s.cacheErr.Store(cacheFailure(err))
		return err
	}
	s.learnSession(ctx, conn)
	s.cache.Store(c)
	epoch.Add(1)
	s.cacheErr.Store(nil)
	s.logger.Info("schema cache loaded",
		zap.String("postgresql", serverVersion(c.ServerVersionNum)),
		zap.Strings("schemas", s.schemas),
		zap.Int("relations", countRelations(c)),
		zap.Int("functions", countFunctions(c)),
		zap.Duration("took", time.Since(start)))
	return nil
}

// keepRoleLimits settles a load whose only fault is a role setting of
// pgrest's that is not valid (a *schemacache.RoleSettingError): with a
// cache in use, the new one keeps that cache's role limits and the
// error is logged naming the setting and the role, as an in-database
// configuration that is not valid is on reload; the rest of the schema
// is served new, and the load is not retried (it would read the same
// value). Without a cache in use (the database could not be read at
// start) there are no limits to keep: the load fails and is retried, so
// that the fixed value is read as soon as it is.
func (s *Source) keepRoleLimits(c *schemacache.Cache, err error) (*schemacache.Cache, error) {
	var bad *schemacache.RoleSettingError
	if err == nil || c == nil || !errors.As(err, &bad) {
		return c, err
	}
	prev := s.cache.Load()
	if prev == nil {
		return nil, err
	}
	s.logger.Error("a role setting is not valid; the roles' limits of the last good schema load stay in force",
		zap.String("setting", bad.Setting), zap.String("role", bad.Role), zap.Error(err))
	return c.WithRoleLimitsOf(prev), nil
}

// learnSession records the session user of conn's server session and
// warns when PostgreSQL logs statement parameters (statement_log.go), in
// one round trip. It is best effort: the user of db_uri is checked in any
// case.
func (s *Source) learnSession(ctx context.Context, conn *pgxpool.Conn) {
	var su string
	var logSettings map[string]string
	if err := conn.QueryRow(ctx, sessionQuery).Scan(&su, &logSettings); err != nil {
		s.logger.Warn("reading the session user", zap.Error(err))
		return
	}
	s.sessionUser.Store(&su)
	s.warnOfLoggedParameters(logSettings)
}

// Current returns the schema cache. While there is none, a request asks
// for a load (unless one just failed) and waits for it up to wait, so
// that it is answered with what the database says now: the cache as soon
// as the database is back, else the cause of the failure just seen.
func (s *Source) Current(ctx context.Context, wait time.Duration) (*schemacache.Cache, *apierr.Error) {
	if c := s.cache.Load(); c != nil {
		return c, nil
	}
	s.mu.Lock()
	done := s.done
	running := s.running
	fresh := s.attempted && !running && time.Since(s.finished) < requestRetryInterval
	s.mu.Unlock()
	if !fresh {
		if !running {
			// While a load runs, the request waits for it: asking for
			// another would load the cache a second time as soon as the
			// first is done, and retire every statement prepared on
			// the first cache.
			s.Reload()
		}
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case <-done:
		case <-timer.C:
		case <-ctx.Done():
		}
	}
	if c := s.cache.Load(); c != nil {
		return c, nil
	}
	if ae := s.cacheErr.Load(); ae != nil {
		return nil, ae
	}
	return nil, apierr.NoSchemaCache()
}

// cacheFailure is what requests are told while the cache cannot load:
// the connection error when the database is unreachable, else PGRST002.
func cacheFailure(err error) *apierr.Error {
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return ae
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return apierr.ConnectionError(dbpool.ConnectionCause(err))
	}
	return apierr.NoSchemaCache()
}

// serverVersion renders server_version_num (150018) as PostgreSQL writes
// its major and minor version ("15.18").
func serverVersion(num int) string {
	return strconv.Itoa(num/10000) + "." + strconv.Itoa(num%10000)
}

// epoch counts schema cache loads across every source in the process.
// Executors with different configurations may share a pool (the same
// db_uri), and prepared statement names are digests of their text, so
// the statements on a connection belong to no single executor: a
// per-executor counter would make two executors reset each other's
// statements on every switch. A reload anywhere retires them all once.
var epoch atomic.Uint64

// Epoch is the number of schema cache loads so far, by every source: a
// prepared statement from before the last load is not used again.
func Epoch() uint64 { return epoch.Load() }

// LoadObserver is told of every schema cache load: how long it took and
// why it failed (nil on success). It must be safe for concurrent use.
type LoadObserver interface {
	SchemaCacheLoaded(took time.Duration, err error)
}

// SetObserver makes s report its loads to o. Call it before Start.
func (s *Source) SetObserver(o LoadObserver) { s.observer = o }

// Cache is the schema cache requests are planned against now; nil until
// the first load.
func (s *Source) Cache() *schemacache.Cache { return s.cache.Load() }

// SessionUser is the session user the server reported at the last load
// that read it; ok is false before the first.
func (s *Source) SessionUser() (su string, ok bool) {
	if su := s.sessionUser.Load(); su != nil {
		return *su, true
	}
	return "", false
}

// Ready reports whether requests can be served, with PostgREST's meaning
// of /ready: the schema cache is loaded and the database answers. It
// returns nil when ready, else why not.
func (s *Source) Ready(ctx context.Context) error {
	if s.cache.Load() == nil {
		if msg := s.loadErr.Load(); msg != nil {
			return fmt.Errorf("the schema cache is not loaded: %s", *msg)
		}
		return errors.New("the schema cache is not loaded yet")
	}
	return dbpool.Ping(ctx, s.pool)
}

func countRelations(c *schemacache.Cache) int {
	n := 0
	for _, m := range c.Relations {
		n += len(m)
	}
	return n
}

func countFunctions(c *schemacache.Cache) int {
	n := 0
	for _, m := range c.Functions {
		for _, fs := range m {
			n += len(fs)
		}
	}
	return n
}
