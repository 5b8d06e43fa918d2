package replicas

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"
)

// replicaCheckTimeout bounds one health check of a replica (connecting
// included) and the reading of the primary's WAL position: a replica
// that does not answer in that time is down.
const replicaCheckTimeout = 2 * time.Second

// How lag is measured. A replica's own clock-based measure, now() -
// pg_last_xact_replay_timestamp(), grows without bound while the primary
// is idle (nothing to replay is not lag), and a replica whose WAL
// receiver lost the primary still sees everything it received as
// replayed. So the checker compares positions instead: at every check it
// reads the primary's WAL position (pg_current_wal_lsn) and remembers
// when the primary first reached it; a replica's lag is then the age of
// the oldest remembered position that its replay (pg_last_wal_replay_lsn)
// has not reached yet, and 0 when it has replayed everything the primary
// had written at this check. An idle primary has nothing the replica
// lacks (lag 0); a stuck replica falls further behind with every check
// while the primary writes. Every time is pgrest's own clock, so the
// servers' clocks do not matter; the measure is exact to within a check
// interval.

// walSample is the primary's WAL position, and when it was first seen.
type walSample struct {
	at  time.Time
	lsn int64
}

// checkLoop checks every replica at once each interval until ctx ends,
// each on a connection of its own (not one of its pool's, which requests
// may all be using), after reading the primary's position.
func (s *Set) checkLoop(ctx context.Context) {
	defer close(s.done)
	var primary *pgx.Conn
	conns := make([]*pgx.Conn, len(s.replicas))
	defer func() {
		for _, c := range append(conns, primary) {
			if c != nil {
				_ = c.Close(context.Background())
			}
		}
	}()
	var samples []walSample
	tick := time.NewTicker(s.interval)
	defer tick.Stop()
	for {
		var err error
		primary, samples, err = s.samplePrimary(ctx, primary, samples)
		if err != nil && ctx.Err() == nil {
			if ce := s.logger.Check(zap.DebugLevel, "reading the primary's WAL position; replica lag is judged on the positions read before"); ce != nil {
				ce.Write(zap.Error(err))
			}
		}
		var wg sync.WaitGroup
		for i, r := range s.replicas {
			wg.Go(func() { conns[i] = s.checkReplica(ctx, r, conns[i], samples) })
		}
		wg.Wait()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// samplePrimary reads the primary's WAL position and adds it to samples
// when the primary has moved on; samples older than what MaxLag needs are
// dropped, but never the newest (on an idle primary it is the position a
// stuck replica has not reached, however old).
func (s *Set) samplePrimary(ctx context.Context, conn *pgx.Conn, samples []walSample) (*pgx.Conn, []walSample, error) {
	now := time.Now()
	keep := now.Add(-(s.maxLag + 2*s.interval))
	for len(samples) > 1 && samples[0].at.Before(keep) && samples[1].at.Before(keep) {
		samples = samples[1:]
	}
	cctx, cancel := context.WithTimeout(ctx, replicaCheckTimeout)
	defer cancel()
	conn, err := connectIfClosed(cctx, conn, s.primary)
	if err != nil {
		return nil, samples, err
	}
	var lsn int64
	if err := conn.QueryRow(cctx, "select (pg_current_wal_lsn() - '0/0'::pg_lsn)::int8").Scan(&lsn); err != nil {
		_ = conn.Close(context.Background())
		return nil, samples, err
	}
	if len(samples) == 0 || lsn > samples[len(samples)-1].lsn {
		samples = append(samples, walSample{at: now, lsn: lsn})
	}
	return conn, samples, nil
}

// lagBehind is how far behind the primary a replica that has replayed up
// to replayed is: the age of the oldest sample beyond it, or 0.
func lagBehind(samples []walSample, replayed int64, now time.Time) time.Duration {
	for _, s := range samples {
		if s.lsn > replayed {
			return now.Sub(s.at)
		}
	}
	return 0
}

// checkReplica checks one replica and puts it in or out of rotation; it
// returns the connection to check it on next time.
func (s *Set) checkReplica(ctx context.Context, r *Replica, conn *pgx.Conn, samples []walSample) *pgx.Conn {
	cctx, cancel := context.WithTimeout(ctx, replicaCheckTimeout)
	defer cancel()
	conn, err := connectIfClosed(cctx, conn, r.check)
	if err != nil {
		if ctx.Err() == nil {
			s.setDown(r, fmt.Errorf("does not answer: %w", err), -1)
		}
		return nil
	}
	var inRecovery bool
	var replayed *int64
	err = conn.QueryRow(cctx, "select pg_is_in_recovery(), (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::int8").
		Scan(&inRecovery, &replayed)
	if err != nil {
		_ = conn.Close(context.Background())
		if ctx.Err() == nil {
			s.setDown(r, fmt.Errorf("does not answer: %w", err), -1)
		}
		return nil
	}
	if !inRecovery || replayed == nil {
		// A promoted replica, or a primary named as one: its data may
		// have parted from the primary's, so it serves no reads.
		s.setDown(r, errors.New("is not in recovery: it is not a replica of the primary"), -1)
		return conn
	}
	lag := lagBehind(samples, *replayed, time.Now())
	if lag > s.maxLag {
		s.setDown(r, fmt.Errorf("lags %s behind the primary, more than db_replica_max_lag %s",
			lag.Round(time.Millisecond), s.maxLag), lag)
		return conn
	}
	r.lag.Store(int64(lag))
	r.checked = true
	if r.up.CompareAndSwap(false, true) {
		s.logger.Info("read replica is up: reads go to it", zap.String("replica", r.Name), zap.Duration("lag", lag))
	}
	return conn
}

// setDown takes r out of rotation for why, logging the change.
func (s *Set) setDown(r *Replica, why error, lag time.Duration) {
	r.lag.Store(int64(lag))
	first := !r.checked
	r.checked = true
	if r.up.CompareAndSwap(true, false) || first {
		s.logger.Warn("read replica is down: reads go to the other replicas or the primary",
			zap.String("replica", r.Name), zap.Error(why))
		// Its pool's idle connections most likely broke with it; reads
		// after its return must not find them first.
		r.pool.Reset()
	}
}

// connectIfClosed returns conn, or a new connection when it is closed or
// nil.
func connectIfClosed(ctx context.Context, conn *pgx.Conn, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	if conn != nil && !conn.IsClosed() {
		return conn, nil
	}
	return pgx.ConnectConfig(ctx, cfg)
}
