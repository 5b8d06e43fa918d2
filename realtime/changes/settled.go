package changes

import (
	"context"
	"time"

	"go.uber.org/zap"
)

// A commit reaches the replication stream before it is visible to
// other sessions: PostgreSQL flushes the commit record, and wakes the
// walsenders, before the committing backend leaves the proc array. A
// visibility query the feed runs the moment it decodes a commit can
// therefore take a snapshot in which the new row does not exist yet,
// and the row would be dropped as hidden by a policy, though the
// subscriber may see it. So before a round's visibility queries the
// feed waits until its transactions are visible: until a snapshot
// taken then has each of their xids below its xmax and not among its
// running ones. Once one snapshot sees a transaction, every later one
// does, whatever connection takes it.

// snapshotQuery reads the current snapshot's xmax and running xids.
// The txid_ functions have the same answer as pg_current_snapshot's
// and exist in every PostgreSQL pgrest supports.
const snapshotQuery = `select txid_snapshot_xmax(s), coalesce((select array_agg(x) from txid_snapshot_xip(s) x), '{}')
from txid_current_snapshot() s`

// settleLimit bounds the wait: a commit leaves the proc array
// microseconds after its record is flushed, so not seeing it for this
// long means something else is wrong, and the round goes on (failing
// closed: the rows still invisible are not delivered).
const settleLimit = 2 * time.Second

// settled says whether a snapshot with xmax and running xids xip (both
// 64-bit, epoch and xid) sees the committed transaction xid (32-bit, as
// pgoutput sends it). The comparison is modulo 2^32, as PostgreSQL
// compares xids: a decoded transaction is never 2^31 xids old.
func settled(xid uint32, xmax int64, xip []int64) bool {
	if int32(xid-uint32(xmax)) >= 0 {
		return false // not below xmax: not completed in this snapshot
	}
	for _, x := range xip {
		if uint32(x) == xid {
			return false
		}
	}
	return true
}

// awaitSettled returns once a snapshot sees every transaction of xids,
// or after settleLimit.
func (f *Feed) awaitSettled(ctx context.Context, xids []uint32) {
	if len(xids) == 0 {
		return
	}
	deadline := time.Now().Add(settleLimit)
	pause := 200 * time.Microsecond
	for {
		var (
			xmax int64
			xip  []int64
		)
		err := f.retry(ctx, "reading the current snapshot", func() error {
			return f.pool.QueryRow(ctx, snapshotQuery).Scan(&xmax, &xip)
		})
		if err != nil {
			f.log.Warn("realtime: reading the current snapshot; rows committed a moment ago may be taken as hidden", zap.Error(err))
			return
		}
		waiting := xids[:0]
		for _, x := range xids {
			if !settled(x, xmax, xip) {
				waiting = append(waiting, x)
			}
		}
		xids = waiting
		if len(xids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			f.log.Warn("realtime: decoded transactions are still not visible; their rows are taken as hidden",
				zap.Uint32s("xids", xids), zap.Duration("waited", settleLimit))
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, 20*time.Millisecond)
	}
}
