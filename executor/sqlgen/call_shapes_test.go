package sqlgen

import (
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// The SQL of calls whose shape PostgREST fixes: a bare record in a select
// list, character(n) and bit(n) arguments read without a length, a raw body
// cast to the one parameter's type.
func TestCallShapes(t *testing.T) {
	text := schemacache.Param{Name: "t", Type: "text", TypeSchema: "pg_catalog", TypeName: "text"}
	chars := schemacache.Param{Name: "c", Type: "character", TypeSchema: "pg_catalog", TypeName: "bpchar"}
	charArr := schemacache.Param{Name: "cs", Type: "character[]", TypeSchema: "pg_catalog", TypeName: "bpchar", TypeArrayDims: 1}
	bits := schemacache.Param{Name: "b", Type: "bit", TypeSchema: "pg_catalog", TypeName: "bit"}
	record := schemacache.Return{Shape: schemacache.ReturnsScalar, Type: "record", Pseudo: true}
	cases := []struct {
		name string
		call plan.Call
		want []string // substrings of the SQL, in order
		not  []string
	}{
		{name: "a record without arguments is called in a select list",
			call: plan.Call{Function: &schemacache.Function{Schema: "api", Name: "rec", Returns: record}},
			want: []string{`from (select "api"."rec"() pgrst_scalar) pgrst_call`},
			not:  []string{`pgrst_call(pgrst_scalar)`}},
		{name: "a set of records with named arguments is called in a select list after json_to_record",
			call: plan.Call{Function: &schemacache.Function{Schema: "api", Name: "recs", Params: []schemacache.Param{text},
				Returns: schemacache.Return{Shape: schemacache.ReturnsScalar, Type: "record", Pseudo: true, Set: true}},
				Given: []schemacache.Param{text}, Args: []byte(`{"t":"x"}`)},
			want: []string{`pg_catalog.json_to_record($1::json) as pgrst_args("t" "pg_catalog"."text"), lateral (select "api"."recs"("t" := pgrst_args."t") pgrst_scalar) pgrst_call`}},
		{name: "a scalar keeps the FROM call with a column alias",
			call: plan.Call{Function: &schemacache.Function{Schema: "api", Name: "s", Returns: schemacache.Return{Shape: schemacache.ReturnsScalar, Type: "integer"}}},
			want: []string{`from "api"."s"() pgrst_call(pgrst_scalar)`}},
		{name: "character and bit arguments are read as varying types",
			call: plan.Call{Function: &schemacache.Function{Schema: "api", Name: "cb", Params: []schemacache.Param{chars, charArr, bits},
				Returns: schemacache.Return{Shape: schemacache.ReturnsScalar, Type: "text"}},
				Given: []schemacache.Param{chars, charArr, bits}, Args: []byte(`{}`)},
			want: []string{`"c" "pg_catalog"."varchar"`, `"cs" "pg_catalog"."varchar"[]`, `"b" "pg_catalog"."varbit"`},
			not:  []string{`bpchar`, `"bit"`}},
		{name: "a raw body is cast to the one parameter's own type",
			call: plan.Call{Function: &schemacache.Function{Schema: "api", Name: "raw", Params: []schemacache.Param{{Type: "bytea", TypeSchema: "pg_catalog", TypeName: "bytea"}},
				Returns: schemacache.Return{Shape: schemacache.ReturnsScalar, Type: "text"}}, WholeBody: true, Args: []byte(`\x00`)},
			want: []string{`"api"."raw"($1::"pg_catalog"."bytea") pgrst_call(pgrst_scalar)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sql := CallFunction(c.call).SQL.String()
			rest := sql
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("SQL lacks %q (in order):\n%s", w, sql)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range c.not {
				if strings.Contains(sql, n) {
					t.Errorf("SQL holds %q:\n%s", n, sql)
				}
			}
		})
	}
}
