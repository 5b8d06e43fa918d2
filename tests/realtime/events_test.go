package realtime

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/realtime/changes"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// summary renders deliveries as "TYPE id" lines, the id from record or,
// for a DELETE, old_record.
func summary(ds []delivered) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		rec := d.Data.Record
		if d.Data.Type == "DELETE" {
			rec = d.Data.OldRecord
		}
		out[i] = fmt.Sprintf("%s %v", d.Data.Type, rec["id"])
	}
	return out
}

// Each event and each filter operator of Supabase's postgres_changes,
// on a table without row-level security.
func TestEventsAndFilters(t *testing.T) {
	e := newEnv(t, "rt_events", changes.Config{})
	spec := func(event, filter string) changes.Spec {
		return changes.Spec{Event: event, Schema: "public", Table: "notes", Filter: filter}
	}
	cases := []struct {
		spec changes.Spec
		want []string
	}{
		{spec("*", ""), []string{"INSERT 1", "INSERT 2", "INSERT 3", "INSERT 4", "UPDATE 2", "DELETE 3"}},
		{spec("INSERT", ""), []string{"INSERT 1", "INSERT 2", "INSERT 3", "INSERT 4"}},
		{spec("UPDATE", ""), []string{"UPDATE 2"}},
		{spec("DELETE", ""), []string{"DELETE 3"}},
		{spec("*", "id=eq.2"), []string{"INSERT 2", "UPDATE 2"}},
		{spec("INSERT", "id=neq.2"), []string{"INSERT 1", "INSERT 3", "INSERT 4"}},
		{spec("INSERT", "id=lt.3"), []string{"INSERT 1", "INSERT 2"}},
		{spec("INSERT", "id=lte.3"), []string{"INSERT 1", "INSERT 2", "INSERT 3"}},
		{spec("INSERT", "id=gt.3"), []string{"INSERT 4"}},
		{spec("INSERT", "id=gte.3"), []string{"INSERT 3", "INSERT 4"}},
		{spec("INSERT", "id=in.(1,4)"), []string{"INSERT 1", "INSERT 4"}},
		{spec("INSERT", "body=eq.two"), []string{"INSERT 2"}},
		{spec("INSERT", "n=gt.2.5"), []string{"INSERT 3", "INSERT 4"}},
		{spec("INSERT", "id=gt.1,id=lt.4"), []string{"INSERT 2", "INSERT 3"}},
		// DELETE is filtered on the old row (its key, without replica
		// identity full).
		{spec("DELETE", "id=eq.3"), []string{"DELETE 3"}},
		{spec("DELETE", "id=eq.4"), nil},
	}
	sinks := make([]*sink, len(cases))
	ids := make([]uint32, len(cases))
	for i, c := range cases {
		_, bound, s := subscribe(t, e, anon, c.spec)
		sinks[i], ids[i] = s, bound[0].ID
	}
	pgtest.Exec(t, e.dsn, `insert into notes values (1, 'one', 1), (2, 'two', 2);
insert into notes values (3, 'three', 3);
insert into notes values (4, 'four', 4.5);
update notes set body = 'deux' where id = 2;
delete from notes where id = 3;`)
	sinks[0].wait(t, 6)
	for i, c := range cases {
		got := summary(sinks[i].wait(t, len(c.want)))
		if !slices.Equal(got, c.want) {
			t.Errorf("%+v: got %v, want %v", c.spec, got, c.want)
		}
		for _, d := range sinks[i].snapshot() {
			if !slices.Equal(d.IDs, []uint32{ids[i]}) {
				t.Errorf("%+v: ids %v, want [%d]", c.spec, d.IDs, ids[i])
			}
		}
	}
	// The payload as Supabase sends it: the row's values as JSON of
	// their types, the columns with their type names, the commit time
	// in UTC with milliseconds.
	first := sinks[0].snapshot()[0]
	if first.Data.Schema != "public" || first.Data.Table != "notes" || first.Data.Errors != nil {
		t.Errorf("payload %s", first.raw)
	}
	wantCols := []map[string]string{{"name": "id", "type": "int4"}, {"name": "body", "type": "text"}, {"name": "n", "type": "numeric"}}
	if fmt.Sprint(first.Data.Columns) != fmt.Sprint(wantCols) {
		t.Errorf("columns %v, want %v", first.Data.Columns, wantCols)
	}
	if want := `"record":{"n":1,"id":1,"body":"one"}`; !strings.Contains(first.raw, want) {
		t.Errorf("payload %s lacks %s", first.raw, want)
	}
	if len(first.Data.Commit) != len("2024-05-01T12:30:00.000Z") || first.Data.Commit[len(first.Data.Commit)-1] != 'Z' {
		t.Errorf("commit_timestamp %q", first.Data.Commit)
	}
	update := sinks[2].snapshot()[0]
	if update.Data.Record["body"] != "deux" || len(update.Data.OldRecord) != 0 {
		t.Errorf("update payload %s", update.raw)
	}
}
