package read

import (
	"strings"
	"testing"
)

// reprCase is one request against the representations fixture and the
// answer PostgREST gives it.
type reprCase struct {
	name, path string
	status     int
	want       string
}

func runReprCases(t *testing.T, s *server, cases []reprCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.Get(t, c.path).Expect(t, c.status, c.want, nil)
		})
	}
}

// TestDataRepresentationsFormatOutput selects columns of domains with an
// implicit cast to json: the cast's function formats them wherever they
// are selected (PostgREST's "Data representations" spec).
func TestDataRepresentationsFormatOutput(t *testing.T) {
	s := startReprServer(t)
	runReprCases(t, s, []reprCase{
		{"a single column is formatted", "/todos?select=id,label_color&id=lt.4", 200,
			`[{"id":1,"label_color":"#000000"},{"id":2,"label_color":"#000100"},{"id":3,"label_color":"#01E240"}]`},
		{"two columns with different formatters", "/todos?select=id,label_color,due_at&id=lt.4", 200,
			`[{"id":1,"label_color":"#000000","due_at":"2018-01-02T00:00:00Z"},{"id":2,"label_color":"#000100","due_at":"2018-01-03T00:00:00Z"},` +
				`{"id":3,"label_color":"#01E240","due_at":"2018-01-01T14:12:34.123456Z"}]`},
		{"an alias keeps the format", "/todos?select=id,clr:label_color&id=lt.3", 200,
			`[{"id":1,"clr":"#000000"},{"id":2,"clr":"#000100"}]`},
		{"a cast applies to the formatted value", "/todos?select=id,clr:label_color::text&id=lt.3", 200,
			`[{"id":1,"clr":"\"#000000\""},{"id":2,"clr":"\"#000100\""}]`},
		{"NULL goes through the formatter too", "/todos?select=id,label_color,due_at&id=gt.2&id=lt.5", 200,
			`[{"id":3,"label_color":"#01E240","due_at":"2018-01-01T14:12:34.123456Z"},{"id":4,"label_color":"","due_at":null}]`},
		{"a star lists the columns, formatted", "/todos?select=*&id=lt.3", 200,
			`[{"id":1,"name":"Report","label_color":"#000000","due_at":"2018-01-02T00:00:00Z","level":1},` +
				`{"id":2,"name":"Essay","label_color":"#000100","due_at":"2018-01-03T00:00:00Z","level":2}]`},
		{"no select is a star", "/todos?id=eq.3", 200,
			`[{"id":3,"name":"Algebra","label_color":"#01E240","due_at":"2018-01-01T14:12:34.123456Z","level":3}]`},
		{"an assignment cast to json is no representation", "/todos?select=id,level&id=eq.2", 200,
			`[{"id":2,"level":2}]`},
		{"a column that does not exist is PostgreSQL's error", "/todos?select=id,label_color,banana", 400,
			`{"code":"42703","details":null,"hint":null,"message":"column todos.banana does not exist"}`},
		{"through a to-one embed", "/todo_pairs?select=id,name,first_item:todos!todo_pairs_first_item_id_fkey(label_color,due_at)&order=id", 200,
			`[{"id":1,"name":"school related","first_item":{"label_color":"#000100","due_at":"2018-01-03T00:00:00Z"}},` +
				`{"id":2,"name":"do these first","first_item":{"label_color":"#000000","due_at":"2018-01-02T00:00:00Z"}}]`},
		{"through an embed with a star", "/todo_pairs?select=id,second_item:todos!todo_pairs_second_item_id_fkey(*)&id=eq.1", 200,
			`[{"id":1,"second_item":{"id":3,"name":"Algebra","label_color":"#01E240","due_at":"2018-01-01T14:12:34.123456Z","level":3}}]`},
		{"through a to-many embed", "/todos?select=id,todo_pairs!todo_pairs_second_item_id_fkey(id,first:todos!todo_pairs_first_item_id_fkey(label_color))&id=eq.3", 200,
			`[{"id":3,"todo_pairs":[{"id":1,"first":{"label_color":"#000100"}},{"id":2,"first":{"label_color":"#000000"}}]}]`},
		{"with an aggregate, rows group by the stored value", "/todos?select=label_color,count()&id=lt.3&order=label_color", 200,
			`[{"label_color":"#000000","count":1},{"label_color":"#000100","count":1}]`},
		{"a star with an aggregate", "/todos?select=*,count()&id=eq.1", 200,
			`[{"id":1,"name":"Report","label_color":"#000000","due_at":"2018-01-02T00:00:00Z","level":1,"count":1}]`},
		{"through a spread", "/todo_pairs?select=id,...todos!todo_pairs_first_item_id_fkey(label_color)&order=id", 200,
			`[{"id":1,"label_color":"#000100"},{"id":2,"label_color":"#000000"}]`},
	})
	t.Run("a star mixed with a column keeps both", func(t *testing.T) {
		res := s.Get(t, "/todos?select=due_at,*&id=eq.1")
		want := `[{"due_at":"2018-01-02T00:00:00Z","id":1,"name":"Report","label_color":"#000000","due_at":"2018-01-02T00:00:00Z","level":1}]`
		if res.Status != 200 || string(res.Body) != want {
			t.Fatalf("%d %s, want %s", res.Status, res.Body, want)
		}
	})
}

// TestDataRepresentationsParseFilters filters on those columns: a value of
// the query string goes through the implicit text-to-domain cast's
// function, for every operator PostgREST parses values of.
func TestDataRepresentationsParseFilters(t *testing.T) {
	s := startReprServer(t)
	runIDsCases(t, s, []idsCase{
		{"eq parses the value", "/todos?select=id&label_color=eq.000100", []int{2}},
		{"eq parses a value with #", "/todos?select=id&label_color=eq.%23000100", []int{2}},
		{"neq parses the value", "/todos?select=id&label_color=neq.000100&order=id", []int{1, 3}},
		{"gt parses the value", "/todos?select=id&label_color=gt.000100", []int{3}},
		{"in parses every element", "/todos?select=id&label_color=in.(000100,01E240)&order=id", []int{2, 3}},
		{"not.in parses every element", "/todos?select=id&label_color=not.in.(000000,01E240)", []int{2}},
		{"an empty in matches nothing", "/todos?select=id&label_color=in.()", []int{}},
		{"eq(any) parses every element", "/todos?select=id&label_color=eq(any).{000100,01E240}&order=id", []int{2, 3}},
		{"in an or= tree", "/todos?select=id&or=(label_color.eq.000000,label_color.eq.%2301E240)&order=id", []int{1, 3}},
		{"is takes no value to parse", "/todos?select=id&label_color=is.null", []int{4}},
		{"isdistinct compares with the domain's own input", "/todos?select=id&label_color=isdistinct.256&order=id", []int{1, 3, 4}},
		{"on an embedded resource", "/todo_pairs?select=id,todos!todo_pairs_first_item_id_fkey!inner(id)&todos.label_color=eq.000100", []int{1}},
	})
	runReprCases(t, s, []reprCase{
		{"across a relation, as PostgREST's spec", "/todo_pairs?select=id,name,todos!todo_pairs_first_item_id_fkey(label_color,due_at)&todos.label_color=neq.000100&order=id", 200,
			`[{"id":1,"name":"school related","todos":null},{"id":2,"name":"do these first","todos":{"label_color":"#000000","due_at":"2018-01-02T00:00:00Z"}}]`},
		{"without a text parser the value is the domain's input", "/todos?select=id,due_at&due_at=eq.Z", 400,
			`{"code":"22007","details":null,"hint":null,"message":"invalid input syntax for type timestamp with time zone: \"Z\""}`},
		{"ilike is not parsed and has no operator for the domain", "/todos?select=id,name&label_color=ilike.%23*100", 404,
			`{"code":"42883","details":null,"hint":"No operator matches the given name and argument types. You might need to add explicit type casts.",` +
				`"message":"operator does not exist: reps.color ~~* unknown"}`},
	})
}

// TestDataRepresentationsLeaveOtherColumnsAlone checks that a table with
// no representation keeps its star, so its rows are what they were.
func TestDataRepresentationsLeaveOtherColumnsAlone(t *testing.T) {
	s := startReprServer(t)
	res := s.Get(t, "/todo_pairs?id=eq.1")
	want := `[{"id":1,"name":"school related","first_item_id":2,"second_item_id":3}]`
	if res.Status != 200 || strings.TrimSpace(string(res.Body)) != want {
		t.Fatalf("%d %s, want %s", res.Status, res.Body, want)
	}
}
