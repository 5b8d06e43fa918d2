package changes

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pglogrepl"
)

// txn is one committed transaction's changes to published tables.
type txn struct {
	commitLSN pglogrepl.LSN // where its commit record starts: Begin's FinalLSN
	endLSN    pglogrepl.LSN // where it ends: what the feed confirms once delivered
	committed time.Time
	// xid is the transaction's id (32 bits, as pgoutput sends it), for
	// waiting until snapshots see what it committed (see visible.go).
	xid     uint32
	changes []change
}

// change is one row changed, its values already JSON.
type change struct {
	rel  *relation
	kind string // INSERT, UPDATE or DELETE, as Supabase names them
	// record is the new row (INSERT, UPDATE); oldRecord the old one as
	// the replica identity gives it (UPDATE, DELETE; only the key
	// columns unless REPLICA IDENTITY FULL, none for an UPDATE that
	// did not change the key).
	record, oldRecord map[string]jsonValue
	// key is the primary key values as text, for the visibility query.
	key json.RawMessage
	// size is the length of all values, for max_record_bytes.
	size int
}

// decoder turns pgoutput messages into transactions.
type decoder struct {
	cat       *catalog
	relations map[uint32]*relation
	cur       *txn
}

// handle decodes one message; it returns the transaction when the
// message is its commit.
func (d *decoder) handle(ctx context.Context, msg pglogrepl.Message) (*txn, error) {
	switch m := msg.(type) {
	case *pglogrepl.RelationMessage:
		r, err := d.cat.relationOf(ctx, m)
		if err != nil {
			return nil, err
		}
		d.relations[m.RelationID] = r
	case *pglogrepl.BeginMessage:
		d.cur = &txn{commitLSN: m.FinalLSN, committed: m.CommitTime, xid: m.Xid}
	case *pglogrepl.CommitMessage:
		t := d.cur
		d.cur = nil
		if t == nil {
			return nil, nil
		}
		t.endLSN = m.TransactionEndLSN
		return t, nil
	case *pglogrepl.InsertMessage:
		d.add(m.RelationID, "INSERT", m.Tuple, nil, false)
	case *pglogrepl.UpdateMessage:
		d.add(m.RelationID, "UPDATE", m.NewTuple, m.OldTuple, m.OldTupleType == pglogrepl.UpdateMessageTupleTypeKey)
	case *pglogrepl.DeleteMessage:
		d.add(m.RelationID, "DELETE", nil, m.OldTuple, m.OldTupleType == pglogrepl.DeleteMessageTupleTypeKey)
	}
	// Truncate, Type and Origin messages carry nothing Supabase sends
	// as postgres_changes.
	return nil, nil
}

// keyOnly says the old tuple is the replica identity's key alone.
func (d *decoder) add(relID uint32, kind string, newT, oldT *pglogrepl.TupleData, keyOnly bool) {
	r := d.relations[relID]
	if d.cur == nil || r == nil {
		return
	}
	c := change{rel: r, kind: kind}
	var oldText, newText map[string]string
	c.oldRecord, oldText, c.size = tupleValues(r, oldT, nil, keyOnly)
	var n int
	c.record, newText, n = tupleValues(r, newT, c.oldRecord, false)
	c.size += n
	text := newText
	if kind == "DELETE" {
		text = oldText
	}
	if kind == "UPDATE" && oldT == nil {
		c.oldRecord = map[string]jsonValue{}
	}
	if len(r.pkey) > 0 {
		key := make(map[string]string, len(r.pkey))
		for _, k := range r.pkey {
			if v, ok := text[k]; ok {
				key[k] = v
			} else if v, ok := oldText[k]; ok {
				key[k] = v
			}
		}
		c.key, _ = json.Marshal(key)
	}
	d.cur.changes = append(d.cur.changes, c)
}

// tupleValues renders a tuple's columns as JSON, and keeps their text.
// An unchanged TOAST value ('u', not sent) takes the old tuple's value
// when there is one, as realtime.apply_rls does; without one it is left
// out.
func tupleValues(r *relation, t *pglogrepl.TupleData, old map[string]jsonValue, keyOnly bool) (map[string]jsonValue, map[string]string, int) {
	if t == nil {
		return nil, nil, 0
	}
	vals := make(map[string]jsonValue, len(t.Columns))
	text := make(map[string]string, len(t.Columns))
	size := 0
	for i, col := range t.Columns {
		if i >= len(r.columns) {
			break
		}
		if keyOnly && !r.columns[i].key {
			continue
		}
		name := r.columns[i].name
		switch col.DataType {
		case pglogrepl.TupleDataTypeNull:
			vals[name] = jsonNull
		case pglogrepl.TupleDataTypeToast:
			if v, ok := old[name]; ok {
				vals[name] = v
			}
		default: // text; the feed never asks for binary
			s := string(col.Data)
			text[name] = s
			v := jsonValue{raw: toJSON(r.columns[i].typ, s)}
			vals[name] = v
			size += len(v.raw)
		}
	}
	return vals, text, size
}
