package sqlgen

import (
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// A statement asked to record its page_total stores it with set_config
// as the page_total column itself, and says so; one not asked counts
// only. Every main statement shape takes the option: a write, a call
// returning rows, a scalar call, a set of scalars.
func TestRecordPageTotal(t *testing.T) {
	rel := &schemacache.Relation{Schema: "api", Name: "items", Columns: []*schemacache.Column{{Name: "id"}}}
	scalar := &schemacache.Function{Schema: "api", Name: "s", Returns: schemacache.Return{Shape: schemacache.ReturnsScalar, Type: "integer"}}
	scalars := &schemacache.Function{Schema: "api", Name: "ss", Returns: schemacache.Return{Shape: schemacache.ReturnsScalar, Type: "integer", Set: true}}
	rows := &schemacache.Function{Schema: "api", Name: "r", Returns: schemacache.Return{Shape: schemacache.ReturnsComposite, Set: true}}
	shapes := map[string]func(record bool) Statement{
		"write": func(record bool) Statement {
			return Write(plan.Mutation{Kind: plan.Delete, Relation: rel, Where: &plan.Read{Relation: rel, Alias: "items"}},
				&plan.Read{Relation: rel, Alias: "items"}, WriteOptions{ReadOptions: ReadOptions{RecordPageTotal: record}, Minimal: true})
		},
		"call returning rows": func(record bool) Statement {
			st, _ := CallRead(plan.Call{Function: rows}, &plan.Read{Relation: rel, Alias: "r"}, ReadOptions{RecordPageTotal: record}, false)
			return st
		},
		"scalar call": func(record bool) Statement { return CallFunction(plan.Call{Function: scalar, RecordPageTotal: record}) },
		"set of scalars": func(record bool) Statement {
			return CallFunction(plan.Call{Function: scalars, RecordPageTotal: record})
		},
	}
	const recorded = `pg_catalog.set_config('pgrst.page_total', pg_catalog.count(_pgrst_t)::text, true)::bigint as page_total`
	for name, build := range shapes {
		t.Run(name, func(t *testing.T) {
			st := build(true)
			if !st.RecordsPageTotal || !strings.Contains(st.SQL.String(), recorded) {
				t.Errorf("recorded: RecordsPageTotal %v, SQL:\n%s", st.RecordsPageTotal, st.SQL)
			}
			st = build(false)
			if st.RecordsPageTotal || strings.Contains(st.SQL.String(), "pgrst.page_total") ||
				!strings.Contains(st.SQL.String(), "pg_catalog.count(_pgrst_t) as page_total") {
				t.Errorf("not recorded: RecordsPageTotal %v, SQL:\n%s", st.RecordsPageTotal, st.SQL)
			}
		})
	}
}
