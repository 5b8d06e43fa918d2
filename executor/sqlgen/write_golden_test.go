package sqlgen_test

// Golden tests of the SQL of writes and calls: each case is a planned
// mutation or call whose statement, text and arguments, is compared with
// testdata/write_golden/<name>.golden. They hold the statements' exact
// text, which names their prepared statements. After a deliberate change,
// regenerate and review the diff:
//
//	go test ./executor/sqlgen/ -run WriteGolden -update

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
)

// writeGoldenCase is one statement: build makes it against the golden
// catalog (plus a default on clients.name) and the representations'.
type writeGoldenCase struct {
	name  string
	build func(t *testing.T, w writeGoldenSchema) sqlgen.Statement
}

type writeGoldenSchema struct {
	cache, reprs *schemacache.Cache
}

// readPlan plans rawQuery on relation name of cache, for a write's
// returned rows or an update's filters.
func (w writeGoldenSchema) readPlan(t *testing.T, cache *schemacache.Cache, name, rawQuery string) *plan.Read {
	t.Helper()
	rel, ok := cache.Relation("api", name)
	if !ok {
		t.Fatalf("no relation %s", name)
	}
	q, aerr := apirequest.ParseQuery(rawQuery)
	if aerr != nil {
		t.Fatalf("ParseQuery(%q): %s", rawQuery, aerr.Message)
	}
	p, aerr := plan.BuildRead(cache, rel, q, plan.ReadOptions{})
	if aerr != nil {
		t.Fatalf("BuildRead(%q): %s", rawQuery, aerr.Message)
	}
	return p
}

func (w writeGoldenSchema) rel(t *testing.T, cache *schemacache.Cache, name string) *schemacache.Relation {
	t.Helper()
	rel, ok := cache.Relation("api", name)
	if !ok {
		t.Fatalf("no relation %s", name)
	}
	return rel
}

var jsonRead = sqlgen.ReadOptions{Representation: apirequest.Representation{Media: apirequest.MediaJSON}}

// write is a Write of m on clients (or m.Relation) returning what
// returnQuery selects.
func (w writeGoldenSchema) write(t *testing.T, m plan.Mutation, returnQuery string, opts sqlgen.WriteOptions) sqlgen.Statement {
	t.Helper()
	if m.Relation == nil {
		m.Relation = w.rel(t, w.cache, "clients")
	}
	if opts.Representation == (apirequest.Representation{}) {
		opts.ReadOptions = jsonRead
	}
	return sqlgen.Write(m, w.readPlan(t, w.cache, m.Relation.Name, returnQuery), opts)
}

var clientRows = []byte(`[{"id":1,"name":"a"}]`)

var writeGoldenCases = []writeGoldenCase{
	{"insert_returning_columns", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		return w.write(t, plan.Mutation{Kind: plan.Insert, Columns: []string{"id", "name"}, Payload: clientRows},
			"select=id,name", sqlgen.WriteOptions{})
	}},
	{"insert_returning_star", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		return w.write(t, plan.Mutation{Kind: plan.Insert, Columns: []string{"name"}, Payload: clientRows},
			"", sqlgen.WriteOptions{})
	}},
	{"insert_returning_embed", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		return w.write(t, plan.Mutation{Kind: plan.Insert, Columns: []string{"id", "name"}, Payload: clientRows},
			"select=name,projects(id)", sqlgen.WriteOptions{})
	}},
	{"insert_minimal", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		return w.write(t, plan.Mutation{Kind: plan.Insert, Columns: []string{"id", "name"}, Payload: clientRows},
			"", sqlgen.WriteOptions{Minimal: true})
	}},
	{"insert_defaults", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		return w.write(t, plan.Mutation{Kind: plan.Insert, Payload: []byte(`[{}]`)}, "", sqlgen.WriteOptions{})
	}},
	{"insert_defaults_upsert_counted", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		return w.write(t, plan.Mutation{Kind: plan.Insert, Payload: []byte(`[{}]`), OnConflict: []string{"id"}},
			"", sqlgen.WriteOptions{CountInserted: true})
	}},
	{"insert_missing_default", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		return w.write(t, plan.Mutation{Kind: plan.Insert, Columns: []string{"id", "name"}, Payload: clientRows,
			MissingDefault: true}, "select=id", sqlgen.WriteOptions{})
	}},
	{"upsert_merge_counted", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		return w.write(t, plan.Mutation{Kind: plan.Insert, Columns: []string{"id", "name"}, Payload: clientRows,
			OnConflict: []string{"id"}}, "select=id,name", sqlgen.WriteOptions{CountInserted: true})
	}},
	{"upsert_ignore", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		return w.write(t, plan.Mutation{Kind: plan.Insert, Columns: []string{"id", "name"}, Payload: clientRows,
			OnConflict: []string{"id"}, IgnoreDuplicates: true}, "select=id", sqlgen.WriteOptions{})
	}},
	{"put_key_match", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		return w.write(t, plan.Mutation{Kind: plan.Insert, Columns: []string{"id", "name"}, Payload: clientRows,
			OnConflict: []string{"id"}, KeyMatch: [][2]string{{"id", "1"}}}, "select=id,name",
			sqlgen.WriteOptions{CountInserted: true})
	}},
	{"insert_parsed_by_representation", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		rel := w.rel(t, w.reprs, "todos")
		cols := []string{"id", "label_color"}
		return sqlgen.Write(plan.Mutation{Kind: plan.Insert, Relation: rel, Columns: cols,
			Parsers: plan.JSONParsers(w.reprs, rel, cols), Payload: []byte(`[{"id":1,"label_color":"#000001"}]`)},
			w.readPlan(t, w.reprs, "todos", "select=id,label_color"), sqlgen.WriteOptions{ReadOptions: jsonRead})
	}},
	{"update_filtered", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		return w.write(t, plan.Mutation{Kind: plan.Update, Columns: []string{"name"}, Payload: []byte(`{"name":"b"}`),
			Where: w.readPlan(t, w.cache, "clients", "id=eq.1&name=like.a*")}, "select=id,name", sqlgen.WriteOptions{})
	}},
	{"update_missing_default", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		return w.write(t, plan.Mutation{Kind: plan.Update, Columns: []string{"name"}, Payload: []byte(`{}`),
			MissingDefault: true, Where: w.readPlan(t, w.cache, "clients", "id=eq.1")}, "", sqlgen.WriteOptions{})
	}},
	{"update_empty", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		return w.write(t, plan.Mutation{Kind: plan.Update, Payload: []byte(`{}`),
			Where: w.readPlan(t, w.cache, "clients", "id=eq.1")}, "select=id,name", sqlgen.WriteOptions{})
	}},
	{"update_empty_minimal", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		return w.write(t, plan.Mutation{Kind: plan.Update, Payload: []byte(`{}`)}, "", sqlgen.WriteOptions{Minimal: true})
	}},
	{"update_limited", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		limit := int64(10)
		return w.write(t, plan.Mutation{Kind: plan.Update, Columns: []string{"name"}, Payload: []byte(`{"name":"b"}`),
			Where: w.readPlan(t, w.cache, "clients", "name=eq.a&order=id.desc"), Limit: &limit, Offset: 5},
			"select=id", sqlgen.WriteOptions{})
	}},
	{"update_parsed_by_representation", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		rel := w.rel(t, w.reprs, "todos")
		cols := []string{"label_color"}
		return sqlgen.Write(plan.Mutation{Kind: plan.Update, Relation: rel, Columns: cols,
			Parsers: plan.JSONParsers(w.reprs, rel, cols), Payload: []byte(`{"label_color":"#000001"}`)},
			w.readPlan(t, w.reprs, "todos", ""), sqlgen.WriteOptions{Minimal: true})
	}},
	{"delete_filtered", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		return w.write(t, plan.Mutation{Kind: plan.Delete, Where: w.readPlan(t, w.cache, "clients", "id=in.(1,2)")},
			"select=id", sqlgen.WriteOptions{ReadOptions: sqlgen.ReadOptions{Count: "exact",
				Representation: apirequest.Representation{Media: apirequest.MediaSingleObject}}})
	}},
	{"delete_minimal_limited", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		limit := int64(1)
		return w.write(t, plan.Mutation{Kind: plan.Delete, Where: w.readPlan(t, w.cache, "clients", "order=id"),
			Limit: &limit}, "", sqlgen.WriteOptions{Minimal: true})
	}},
	{"call_rows", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		st, _ := sqlgen.CallRead(goldenCall(), w.readPlan(t, w.cache, "clients", "select=id,name&id=gt.1&order=name&limit=5"),
			jsonRead, false)
		return st
	}},
	{"call_single_row_counted", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		st, _ := sqlgen.CallRead(goldenCall(), w.readPlan(t, w.cache, "clients", ""),
			sqlgen.ReadOptions{Representation: apirequest.Representation{Media: apirequest.MediaJSON}, Count: "exact"}, true)
		return st
	}},
	{"call_varying_and_variadic_arguments", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		c := goldenCall()
		chars := schemacache.Param{Name: "c", Type: "character", TypeSchema: "pg_catalog", TypeName: "bpchar"}
		charArr := schemacache.Param{Name: "cs", Type: "character[]", TypeSchema: "pg_catalog", TypeName: "bpchar", TypeArrayDims: 1}
		bits := schemacache.Param{Name: "b", Type: "bit", TypeSchema: "pg_catalog", TypeName: "bit"}
		nums := schemacache.Param{Name: "n\"q", Type: "integer[]", TypeSchema: "pg_catalog", TypeName: "int4", TypeArrayDims: 1, Variadic: true}
		c.Function.Params = []schemacache.Param{chars, charArr, bits, nums}
		c.Given = c.Function.Params
		st, _ := sqlgen.CallRead(c, w.readPlan(t, w.cache, "clients", "select=id"), jsonRead, false)
		return st
	}},
	{"call_whole_body", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		c := goldenCall()
		c.Given, c.WholeBody, c.Args = nil, true, []byte(`{"a":1}`)
		c.Function.Params = []schemacache.Param{{Type: "json", TypeSchema: "pg_catalog", TypeName: "json"}}
		st, _ := sqlgen.CallRead(c, w.readPlan(t, w.cache, "clients", "select=id"), jsonRead, false)
		return st
	}},
	{"call_without_arguments", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		c := goldenCall()
		c.Given, c.Function.Params = nil, nil
		st, _ := sqlgen.CallRead(c, w.readPlan(t, w.cache, "clients", "select=id"), jsonRead, false)
		return st
	}},
	{"call_scalar", func(t *testing.T, w writeGoldenSchema) sqlgen.Statement {
		c := goldenCall()
		c.Function = &schemacache.Function{Schema: "api", Name: "add", Params: c.Function.Params,
			Returns: schemacache.Return{Shape: schemacache.ReturnsScalar, Type: "integer"}}
		return sqlgen.CallFunction(c)
	}},
}

// goldenCall calls a function of one text argument returning clients.
func goldenCall() plan.Call {
	text := schemacache.Param{Name: "t", Type: "text", TypeSchema: "pg_catalog", TypeName: "text"}
	return plan.Call{Function: &schemacache.Function{Schema: "api", Name: "search_clients", Params: []schemacache.Param{text},
		Returns: schemacache.Return{Shape: schemacache.ReturnsComposite, Set: true, Type: "SETOF api.clients",
			RelationSchema: "api", RelationName: "clients"}},
		Given: []schemacache.Param{text}, Args: []byte(`{"t":"x"}`)}
}

func TestWriteGolden(t *testing.T) {
	catalog := goldenCatalog()
	for _, r := range catalog.Relations {
		if r.Name == "clients" {
			r.Columns[1].InsertDefault = "'unnamed'::text"
		}
	}
	w := writeGoldenSchema{cache: schemacache.Build(catalog), reprs: schemacache.Build(reprCatalog())}
	dir := filepath.Join("testdata", "write_golden")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	names := map[string]bool{}
	for _, c := range writeGoldenCases {
		names[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			st := c.build(t, w)
			if got := unformatSQL(formatSQL(st.SQL.String())); got != st.SQL.String() {
				t.Fatalf("formatSQL is not reversible:\n got %s\nwant %s", got, st.SQL.String())
			}
			checkGolden(t, filepath.Join(dir, c.name+".golden"),
				renderGolden(goldenCase{method: "CASE", target: c.name}, goldenResult{main: st}))
		})
	}
	checkNoOrphanGoldens(t, dir, names)
}
