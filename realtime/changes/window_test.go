package changes

import (
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
)

func txnAt(lsn uint64, changes int) *txn {
	return &txn{commitLSN: pglogrepl.LSN(lsn), changes: make([]change, changes)}
}

func TestWindowKeepsWhatIsAfterAPosition(t *testing.T) {
	now := time.Now()
	w := &window{keep: time.Minute, maxBytes: 1 << 20}
	for _, lsn := range []uint64{10, 20, 30} {
		w.add(txnAt(lsn, 2), now)
	}
	got, whole := w.after(Position{LSN: 20, Seq: 0}, now)
	if len(got) != 2 || got[0].commitLSN != 20 || got[1].commitLSN != 30 || !whole {
		t.Errorf("after 20/0: %d transactions, whole %v", len(got), whole)
	}
	if w.end != (Position{LSN: 30, Seq: wholeTxn}) {
		t.Errorf("end %v", w.end)
	}
}

func TestWindowLetsGoByAgeAndBytes(t *testing.T) {
	now := time.Now()
	w := &window{keep: time.Second, maxBytes: 3 * changeOverhead}
	w.add(txnAt(10, 1), now)
	w.add(txnAt(20, 1), now.Add(2*time.Second)) // 10 is older than the window
	if got, whole := w.after(Position{}, now.Add(2*time.Second)); len(got) != 1 || whole {
		t.Errorf("after age eviction: %d transactions, whole %v", len(got), whole)
	}
	w.add(txnAt(30, 3), now.Add(2*time.Second)) // past the byte bound: 20 goes
	got, _ := w.after(Position{LSN: 20, Seq: wholeTxn}, now.Add(2*time.Second))
	if len(got) != 1 || got[0].commitLSN != 30 || w.since != (Position{LSN: 20, Seq: wholeTxn}) {
		t.Errorf("after byte eviction: %d transactions, since %v", len(got), w.since)
	}
}

func TestPositionOrder(t *testing.T) {
	a, b := Position{LSN: 5, Seq: 1}, Position{LSN: 5, Seq: 2}
	if !b.After(a) || a.After(b) || a.After(a) || !(Position{LSN: 6}).After(b) {
		t.Error("positions out of order")
	}
}
