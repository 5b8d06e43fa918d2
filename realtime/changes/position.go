package changes

import "math"

// Position is a place in the stream of changes: the commit LSN of a
// transaction and the index of a change in it. A commit's LSN is where
// its record lies in the WAL, so a position means the same on every node
// of one database: a client that saw a change through one node can
// resume after it on another.
type Position struct {
	LSN uint64
	Seq uint32
}

// wholeTxn is the Seq of a position after every change of its
// transaction.
const wholeTxn = math.MaxUint32

// After says whether p comes after q.
func (p Position) After(q Position) bool {
	return p.LSN > q.LSN || (p.LSN == q.LSN && p.Seq > q.Seq)
}

// IsZero says whether p is no position (before every change).
func (p Position) IsZero() bool { return p == Position{} }

func maxPosition(p, q Position) Position {
	if q.After(p) {
		return q
	}
	return p
}
