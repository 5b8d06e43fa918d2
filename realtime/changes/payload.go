package changes

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// Supabase's error texts in payloads (realtime.apply_rls).
const (
	errNoPrimaryKey    = "Error 400: Bad Request, no primary key"
	errUnauthorized    = "Error 401: Unauthorized"
	errPayloadTooLarge = "Error 413: Payload Too Large"
)

// commitTimestamp formats a commit time as realtime.apply_rls does:
// to_char(... at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
// milliseconds always written.
func commitTimestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// payload renders payload.data for one change as one role sees it:
// columns and values limited to those the role may SELECT, and, when
// row-level security is on, a DELETE's old_record limited to the
// primary key ("if RLS enabled, we can't secure deletes so filter to
// pkey", apply_rls). errs are apply_rls's errors; with "Error 401" or
// "Error 400" Supabase sends no columns, record or commit_timestamp.
func payload(c *change, committed time.Time, readable map[string]bool, maxRecordBytes int, errs []string) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{`)
	short := len(errs) > 0
	if !short {
		b.WriteString(`"columns":[`)
		first := true
		for _, col := range c.rel.columns {
			if !readable[col.name] {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			b.WriteString(`{"name":`)
			b.Write(jsonString(col.name))
			b.WriteString(`,"type":`)
			b.Write(jsonString(col.typ.name))
			b.WriteByte('}')
		}
		b.WriteString(`],"commit_timestamp":"`)
		b.WriteString(commitTimestamp(committed))
		b.WriteString(`",`)
	}
	tooLarge := !short && c.size > maxRecordBytes
	if tooLarge {
		errs = []string{errPayloadTooLarge}
	}
	b.WriteString(`"errors":`)
	if len(errs) == 0 {
		b.WriteString("null") // convert_errors: an empty list is sent as nil
	} else {
		e, _ := json.Marshal(errs)
		b.Write(e)
	}
	if !short {
		if c.kind != "INSERT" {
			b.WriteString(`,"old_record":`)
			keyOnly := c.kind == "DELETE" && c.rel.rls
			writeRecord(&b, c.oldRecord, func(name string) bool {
				return readable[name] && (!keyOnly || slices.Contains(c.rel.pkey, name))
			}, tooLarge)
		}
		if c.kind != "DELETE" {
			b.WriteString(`,"record":`)
			writeRecord(&b, c.record, func(name string) bool { return readable[name] }, tooLarge)
		}
	}
	b.WriteString(`,"schema":`)
	b.Write(jsonString(c.rel.schema))
	b.WriteString(`,"table":`)
	b.Write(jsonString(c.rel.table))
	b.WriteString(`,"type":"`)
	b.WriteString(c.kind)
	b.WriteString(`"}`)
	return b.Bytes()
}

// writeRecord writes the values whose columns keep allows as a JSON
// object with jsonb's key order (shorter keys first, then bytewise),
// which is the order Supabase's jsonb_object_agg gives them. When the
// change is too large only values of at most 64 bytes are kept, as
// apply_rls does.
func writeRecord(b *bytes.Buffer, rec map[string]jsonValue, keep func(string) bool, tooLarge bool) {
	names := make([]string, 0, len(rec))
	for name, v := range rec {
		if v.raw == nil || !keep(name) || (tooLarge && len(v.raw) > 64) {
			continue
		}
		names = append(names, name)
	}
	slices.SortFunc(names, func(x, y string) int {
		if len(x) != len(y) {
			return len(x) - len(y)
		}
		return strings.Compare(x, y)
	})
	b.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonString(name))
		b.WriteByte(':')
		b.Write(rec[name].raw)
	}
	b.WriteByte('}')
}
