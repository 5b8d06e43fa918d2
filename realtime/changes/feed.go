package changes

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"
)

// Feed reads one node's replication slot and hands each change to the
// subscriptions that may see it.
type Feed struct {
	cfg    Config
	pool   *pgxpool.Pool
	log    *zap.Logger
	cat    *catalog
	legacy bool // claims as one setting per claim (PostgreSQL before 14)

	cancel context.CancelFunc
	done   sync.WaitGroup

	// txns carries committed transactions from the reader to the
	// dispatcher. Bounded: when authorization falls behind, the reader
	// waits and PostgreSQL keeps the WAL in the slot, rather than the
	// feed holding ever more in memory.
	txns chan *txn
	// delivered is the end LSN of the last transaction handed to every
	// subscription, which the reader confirms to PostgreSQL.
	delivered atomic.Uint64
	// deliveredCommit is that transaction's commit LSN, to compare with
	// what the reader queued.
	deliveredCommit atomic.Uint64

	// poolDown is set while the dispatcher cannot reach the database.
	// The reader then lets go of its replication connection: a server
	// shutting down waits for its walsenders to be confirmed up to the
	// end of the WAL, which the feed cannot do without delivering, and
	// delivering needs the database.
	poolDown atomic.Bool

	mu     sync.RWMutex
	subs   map[*Subscription]struct{}
	replay window
	nextID atomic.Uint32

	closeOnce sync.Once
	closeErr  error
}

// slotName is what PostgreSQL accepts as a replication slot's name.
var slotName = regexp.MustCompile(`^[a-z0-9_]{1,63}$`)

// Start connects, creates the slot (or takes over the one a crashed run
// of this node left), and begins streaming; the pool runs the catalog
// look-ups and authorization checks.
func Start(ctx context.Context, cfg Config, pool *pgxpool.Pool, log *zap.Logger) (*Feed, error) {
	cfg = cfg.withDefaults()
	if cfg.Publication == "" {
		return nil, errors.New("realtime: the publication is not set")
	}
	if !slotName.MatchString(cfg.SlotName) {
		return nil, fmt.Errorf("realtime: slot name %q: use 1 to 63 lowercase letters, digits and _", cfg.SlotName)
	}
	if log == nil {
		log = zap.NewNop()
	}
	f := &Feed{cfg: cfg, pool: pool, log: log, cat: &catalog{pool: pool},
		txns: make(chan *txn, maxBatch), subs: map[*Subscription]struct{}{},
		replay: window{keep: cfg.ReplayWindow, maxBytes: cfg.ReplayMaxBytes}}
	var version int
	if err := pool.QueryRow(ctx, "select current_setting('server_version_num')::int").Scan(&version); err != nil {
		return nil, fmt.Errorf("realtime: reading the server version: %w", err)
	}
	f.legacy = version < 140000
	var exists bool
	if err := pool.QueryRow(ctx, "select exists (select 1 from pg_catalog.pg_publication where pubname = $1)",
		cfg.Publication).Scan(&exists); err != nil {
		return nil, fmt.Errorf("realtime: looking up publication %q: %w", cfg.Publication, err)
	}
	if !exists {
		return nil, fmt.Errorf("realtime: publication %q does not exist (create it with CREATE PUBLICATION)", cfg.Publication)
	}
	conn, err := f.connect(ctx)
	if err != nil {
		return nil, err
	}
	_, err = pglogrepl.CreateReplicationSlot(ctx, conn, cfg.SlotName, "pgoutput",
		pglogrepl.CreateReplicationSlotOptions{Mode: pglogrepl.LogicalReplication})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42710" {
		// The slot of a run that did not close: resume from it, so
		// that what was committed meanwhile is not lost.
		log.Info("realtime: resuming an existing replication slot", zap.String("slot", cfg.SlotName))
		err = nil
	}
	if err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("realtime: creating replication slot %q: %w", cfg.SlotName, err)
	}
	// The slot streams what commits after its confirmed position: the
	// feed's position until it dispatches a transaction.
	var confirmed int64
	if err := pool.QueryRow(ctx, slotPositionQuery, cfg.SlotName).Scan(&confirmed); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("realtime: reading the position of replication slot %q: %w", cfg.SlotName, err)
	}
	f.replay.end = Position{LSN: uint64(confirmed), Seq: wholeTxn}
	f.replay.since = f.replay.end
	runCtx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	f.done.Add(2)
	go f.read(runCtx, conn)
	go f.dispatchLoop(runCtx)
	return f, nil
}

// slotPositionQuery is a slot's confirmed position as a number.
const slotPositionQuery = `select coalesce((confirmed_flush_lsn - '0/0'::pg_lsn)::int8, 0)
from pg_catalog.pg_replication_slots where slot_name = $1`

// connect opens a replication connection. Its session renders values
// as the payloads need them: ISO dates and UTC times.
func (f *Feed) connect(ctx context.Context) (*pgconn.PgConn, error) {
	pc, err := pgconn.ParseConfig(f.cfg.ConnString)
	if err != nil {
		return nil, fmt.Errorf("realtime: parsing the connection string: %w", err)
	}
	pc.RuntimeParams["replication"] = "database"
	pc.RuntimeParams["DateStyle"] = "ISO"
	pc.RuntimeParams["TimeZone"] = "UTC"
	pc.RuntimeParams["IntervalStyle"] = "postgres"
	pc.RuntimeParams["application_name"] = "pgrest realtime"
	conn, err := pgconn.ConnectConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("realtime: opening the replication connection: %w", err)
	}
	return conn, nil
}

// Close stops streaming and drops the slot.
func (f *Feed) Close() error {
	f.closeOnce.Do(func() {
		f.cancel()
		f.done.Wait()
		f.mu.Lock()
		subs := f.subs
		f.subs = nil // Subscribe refuses from now on
		f.mu.Unlock()
		for s := range subs {
			s.end(ErrFeedClosed)
		}
		ctx, cancel := context.WithTimeout(context.Background(), f.cfg.ReconnectMax*6)
		defer cancel()
		conn, err := f.connect(ctx)
		if err != nil {
			f.closeErr = err
			return
		}
		defer conn.Close(context.Background())
		// WAIT: the walsender of the stream just closed may not have
		// released the slot yet.
		if err := pglogrepl.DropReplicationSlot(ctx, conn, f.cfg.SlotName,
			pglogrepl.DropReplicationSlotOptions{Wait: true}); err != nil {
			f.closeErr = fmt.Errorf("realtime: dropping replication slot %q: %w", f.cfg.SlotName, err)
		}
	})
	return f.closeErr
}
