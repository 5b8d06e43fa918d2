package sqlgen_test

// SQL shapes of data representations, JSON arrows on columns that are
// not JSON and full-text search on text and JSON, against a schema cache
// of their own. Each case names the fragments the statement must hold,
// and passes the golden tests' safety check.

import (
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
)

func init() {
	// The functions these shapes call, all schema-qualified.
	for _, w := range []string{"to_jsonb", "unnest"} {
		sqlgenWords[w] = true
	}
}

// reprCatalog has a table with a domain of representations (color),
// one with only an assignment cast (no representation here), a composite,
// an array, json, jsonb, text, tsvector and a tsvector domain.
func reprCatalog() *schemacache.Catalog {
	cols := func(specs ...string) []*schemacache.Column {
		var out []*schemacache.Column
		for i, s := range specs {
			n, typ, _ := strings.Cut(s, " ")
			out = append(out, &schemacache.Column{Name: n, Type: typ, Nullable: true, Position: i + 1})
		}
		return out
	}
	fn := schemacache.QualifiedName{Schema: "reps", Name: "color"}
	return &schemacache.Catalog{
		ServerVersionNum: 170000,
		Schemas:          []string{"api"},
		Relations: []*schemacache.Relation{
			{Schema: "api", Name: "todos", Kind: schemacache.KindTable,
				Columns: cols("id integer", "name text", "label_color reps.color")},
			{Schema: "api", Name: "shapes", Kind: schemacache.KindTable,
				Columns: cols("id integer", "center api.point3", "numbers integer[]", "doc json", "docb jsonb",
					"body text", "search tsvector", "search2 reps.tsv")},
		},
		Keys: []schemacache.Key{
			{Table: schemacache.QualifiedName{Schema: "api", Name: "todos"}, Constraint: "todos_pkey", Primary: true, Columns: []string{"id"}},
		},
		Representations: []schemacache.Representation{
			{Source: "reps.color", Target: "json", Function: schemacache.QualifiedName{Schema: "reps", Name: "json"}},
			{Source: "text", Target: "reps.color", Function: fn},
			{Source: "json", Target: "reps.color", Function: fn},
		},
		Domains: map[string]string{"reps.color": "integer", "reps.tsv": "tsvector"},
	}
}

func TestRepresentationAndOperatorShapes(t *testing.T) {
	cache := schemacache.Build(reprCatalog())
	cases := []struct {
		name, target string
		want         []string
		not          []string
	}{
		{"a selected column is formatted", "/todos?select=id,label_color",
			[]string{`"reps"."json"("todos"."label_color") as "label_color"`}, nil},
		{"a cast applies to the formatted value", "/todos?select=c:label_color::text",
			[]string{`("reps"."json"("todos"."label_color"))::"text" as "c"`}, nil},
		{"a star lists the columns", "/todos",
			[]string{`"todos"."id" as "id", "todos"."name" as "name", "reps"."json"("todos"."label_color") as "label_color"`},
			[]string{`"todos".*`}},
		{"eq parses its value as text", "/todos?select=id&label_color=eq.000100",
			[]string{`"todos"."label_color" = "reps"."color"($1::text)`}, nil},
		{"in parses every element", "/todos?select=id&label_color=in.(a,b)",
			[]string{`"todos"."label_color" = any(select "reps"."color"(pg_catalog.unnest($1::text[])))`}, nil},
		{"eq(any) parses every element", "/todos?select=id&label_color=eq(any).{a,b}",
			[]string{`"todos"."label_color" = any(select "reps"."color"(pg_catalog.unnest($1::text[])))`}, nil},
		{"like, is and isdistinct take their value as it is",
			"/todos?select=id&label_color=like.a*&or=(label_color.is.null,label_color.isdistinct.5)",
			[]string{`"todos"."label_color" like $1`, `"todos"."label_color" is null`, `"todos"."label_color" is distinct from $2`}, nil},
		{"order takes the stored value", "/todos?select=id&order=label_color",
			[]string{`order by "todos"."label_color"`}, nil},
		{"arrows on a composite and an array read to_jsonb", "/shapes?select=center->x,numbers->>0&center->>y=eq.1",
			[]string{`pg_catalog.to_jsonb("shapes"."center")->$1::text as "x"`,
				`pg_catalog.to_jsonb("shapes"."numbers")->>$2::integer as "numbers"`,
				`pg_catalog.to_jsonb("shapes"."center")->>$3::text = $4`}, nil},
		{"arrows on json and jsonb read the column", "/shapes?select=doc->a,docb->b",
			[]string{`"shapes"."doc"->$1::text`, `"shapes"."docb"->$2::text`}, []string{"to_jsonb"}},
		{"fts on text, json and a JSON path makes a tsvector",
			"/shapes?select=id&body=fts.a&doc=plfts(english).b&docb->>t=wfts.c",
			[]string{`pg_catalog.to_tsvector("shapes"."body") @@ pg_catalog.to_tsquery($1)`,
				`pg_catalog.to_tsvector($2::regconfig, "shapes"."doc") @@ pg_catalog.plainto_tsquery($2::regconfig, $3)`,
				`pg_catalog.to_tsvector("shapes"."docb"->>$4::text) @@ pg_catalog.websearch_to_tsquery($5)`}, nil},
		{"fts on a tsvector and a tsvector domain does not", "/shapes?select=id&search=fts.a&search2=phfts(simple).b",
			[]string{`"shapes"."search" @@ pg_catalog.to_tsquery($1)`,
				`"shapes"."search2" @@ pg_catalog.phraseto_tsquery($2::regconfig, $3)`}, []string{"to_tsvector"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, rawQuery, _ := strings.Cut(c.target, "?")
			rel, ok := cache.Relation("api", strings.TrimPrefix(path, "/"))
			if !ok {
				t.Fatalf("no relation %s", path)
			}
			q, aerr := apirequest.ParseQuery(rawQuery)
			if aerr != nil {
				t.Fatalf("ParseQuery: %s", aerr.Message)
			}
			p, aerr := plan.BuildRead(cache, rel, q, plan.ReadOptions{})
			if aerr != nil {
				t.Fatalf("BuildRead: %s %s", aerr.Code, aerr.Message)
			}
			main, _ := sqlgen.Read(p, sqlgen.ReadOptions{})
			sql := main.SQL.String()
			for _, w := range c.want {
				if !strings.Contains(sql, w) {
					t.Errorf("the SQL lacks %s\n%s", w, sql)
				}
			}
			for _, w := range c.not {
				if strings.Contains(sql, w) {
					t.Errorf("the SQL holds %s\n%s", w, sql)
				}
			}
			checkSafety(t, goldenResult{query: q, main: main})
		})
	}
}

func TestWriteParsesBodiesThroughRepresentations(t *testing.T) {
	cache := schemacache.Build(reprCatalog())
	rel, _ := cache.Relation("api", "todos")
	cols := []string{"id", "label_color"}
	parsers := plan.JSONParsers(cache, rel, cols)
	if len(parsers) != 1 || parsers["label_color"] == nil {
		t.Fatalf("parsers %v, want label_color's only", parsers)
	}
	p := &plan.Read{Relation: rel, Alias: "todos"}
	ins := sqlgen.Write(plan.Mutation{Kind: plan.Insert, Relation: rel, Columns: cols, Parsers: parsers,
		Payload: []byte(`[{"id":1,"label_color":"#000001"}]`)}, p, sqlgen.WriteOptions{Minimal: true}).SQL.String()
	for _, w := range []string{
		`"reps"."color"(pgrst_el.j -> $1::text)`,
		`pg_catalog.json_populate_record(null::"api"."todos", (pgrst_el.j::jsonb - $3::text[])::json)`,
	} {
		if !strings.Contains(ins, w) {
			t.Errorf("the insert lacks %s\n%s", w, ins)
		}
	}
	upd := sqlgen.Write(plan.Mutation{Kind: plan.Update, Relation: rel, Columns: cols, Parsers: parsers,
		Payload: []byte(`{"label_color":"#000001"}`)}, p, sqlgen.WriteOptions{Minimal: true}).SQL.String()
	for _, w := range []string{
		`"label_color" = "reps"."color"(pgrst_el.j -> $2::text)`,
		`"id" = pgrst_body."id"`,
		`pg_catalog.json_array_elements(pg_catalog.json_build_array($1::json)) as pgrst_el(j)`,
		`pg_catalog.json_populate_record(null::"api"."todos", (pgrst_el.j::jsonb - $3::text[])::json)`,
	} {
		if !strings.Contains(upd, w) {
			t.Errorf("the update lacks %s\n%s", w, upd)
		}
	}
}
