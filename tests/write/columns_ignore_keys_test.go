package write

import (
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// TestColumnsIgnoreOtherKeys mirrors the ?columns cases of InsertSpec,
// UpdateSpec and UpsertSpec "ignores json keys not included in ?columns;
// parses only the ones specified" on repr.todos, whose label_color a data
// representation parses: a key columns= does not list is never read, so a
// value its column would refuse ("#zz" is no color) or of no column at all
// is no error, and its column keeps its default or its value.
func TestColumnsIgnoreOtherKeys(t *testing.T) {
	s := startReprServer(t)
	rep := []string{"Prefer", "return=representation"}
	stored := "select id, name, label_color::int as c from repr.todos order by id"
	seed := `[{"id":1,"name":"Report","c":0},{"id":2,"name":"Essay","c":256},{"id":3,"name":"Algebra","c":123456}]`
	for _, c := range []writeCase{
		{
			name:   "POST: the keys not listed are ignored, their column takes its default",
			method: "POST", path: "/todos?columns=id,name", headers: rep,
			body:   `{"id":5,"name":"party","label_color":"#zz","fake_id":13,"smth":{"a":1}}`,
			status: 201, contentRange: "*/*", applied: []string{"return=representation"},
			want:  `[{"id":5,"name":"party","label_color":"#0000FF"}]`,
			table: "select id, label_color::int as c from repr.todos where id = 5", rows: `[{"id":5,"c":255}]`,
		},
		{
			name:   "POST of rows: only the listed keys of each row are parsed",
			method: "POST", path: "/todos?columns=id,name,label_color&select=id,label_color", headers: rep,
			body:   `[{"id":5,"name":"a","label_color":"#000005","id2":"x"},{"id":6,"name":"b","label_color":"#000006","garbage":"%%$&"}]`,
			status: 201, contentRange: "*/*", applied: []string{"return=representation"},
			want:  `[{"id":5,"label_color":"#000005"},{"id":6,"label_color":"#000006"}]`,
			table: "select id, label_color::int as c from repr.todos where id > 3 order by id", rows: `[{"id":5,"c":5},{"id":6,"c":6}]`,
		},
		{
			name:   "an upsert merges only the listed columns",
			method: "POST", path: "/todos?columns=id,name", body: `[{"id":2,"name":"Essay 2","label_color":"#zz"}]`,
			headers: []string{"Prefer", "resolution=merge-duplicates"},
			status:  200, contentRange: "*/*", applied: []string{"resolution=merge-duplicates"},
			table: stored, rows: `[{"id":1,"name":"Report","c":0},{"id":2,"name":"Essay 2","c":256},{"id":3,"name":"Algebra","c":123456}]`,
		},
		{
			name:   "PUT reads only the listed keys",
			method: "PUT", path: "/todos?id=eq.1&columns=id,name", body: `{"id":1,"name":"Report 2","label_color":"#zz"}`,
			status: 204,
			table:  stored, rows: `[{"id":1,"name":"Report 2","c":0},{"id":2,"name":"Essay","c":256},{"id":3,"name":"Algebra","c":123456}]`,
		},
		{
			name:   "PATCH: the keys not listed are ignored, their column keeps its value",
			method: "PATCH", path: "/todos?id=eq.2&columns=name", headers: rep,
			body:   `{"name":"Essay 2","label_color":"invalid","id":"x","fake_id":13}`,
			status: 200, contentRange: "0-0/*", applied: []string{"return=representation"},
			want:  `[{"id":2,"name":"Essay 2","label_color":"#000100"}]`,
			table: stored, rows: `[{"id":1,"name":"Report","c":0},{"id":2,"name":"Essay 2","c":256},{"id":3,"name":"Algebra","c":123456}]`,
		},
		{
			// UpdateSpec "ignores json keys and gives 200 if no record
			// updated": the listed value is never parsed without a row.
			name:   "PATCH of no row parses nothing and answers 200",
			method: "PATCH", path: "/todos?id=eq.2001&columns=label_color", headers: rep,
			body:   `{"due_at":"2019-01-03T11:00:00Z","smth":"here","label_color":"invalid","fake_id":13}`,
			status: 200, contentRange: "*/*", applied: []string{"return=representation"}, want: `[]`,
			table: stored, rows: seed,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			pgtest.Exec(t, superDSN, "select repr.reset()")
			c.check(t, s.do(t, c.method, c.path, c.body, c.headers...))
			expectRows(t, c.table, c.rows)
		})
	}
	t.Run("a listed key's value is parsed: its error, and nothing written", func(t *testing.T) {
		pgtest.Exec(t, superDSN, "select repr.reset()")
		before := snapshot(t, "repr.todos")
		s.do(t, "PATCH", "/todos?id=eq.2&columns=label_color", `{"label_color":"invalid","name":"x"}`).expectError(t, 400, "22P02")
		unchanged(t, "repr.todos", before)
	})
}
