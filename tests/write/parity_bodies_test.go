package write

import (
	"net/http"
	"testing"
)

// resetParity brings the parity fixture (testdata/10_write_parity.sql)
// and the main one back to their seed rows.
func resetParity(t testing.TB) {
	t.Helper()
	reset(t)
	pgtestExec(t, "select private.reset_parity()")
}

// parityTables are the tables of the parity fixture.
var parityTables = []string{"api.gadgets", "api.ledger", "api.tickets", "api.accounts", "private.draft_rows"}

// TestPatchWithAnArrayBody: PostgREST's update takes its values from the
// first row of an array (UpdateSpec); every row must carry the same keys
// unless columns= names them, and an empty array changes nothing.
func TestPatchWithAnArrayBody(t *testing.T) {
	s := startServer(t)
	rep := []string{"Prefer", "return=representation"}
	runWriteCases(t, s, "", []writeCase{
		{
			name:   "the first row's values are set",
			method: "PATCH", path: "/items?id=eq.1&select=id,name,note", body: `[{"name":"mallet","note":"a"},{"name":"saw","note":"b"}]`,
			headers: rep, status: 200, contentRange: "0-0/*", applied: []string{"return=representation"},
			want:  `[{"id":1,"name":"mallet","note":"a"}]`,
			table: "select id, name, note from api.items where id <= 2 order by id",
			rows:  `[{"id":1,"name":"mallet","note":"a"},{"id":2,"name":"nail","note":"none"}]`,
		},
		{
			name:   "with columns= the rows may differ and a missing key is NULL",
			method: "PATCH", path: "/items?id=eq.1&columns=name,note&select=id,name,note", body: `[{"name":"mallet"},{"name":"saw","note":"b"}]`,
			headers: rep, status: 200, contentRange: "0-0/*", applied: []string{"return=representation"},
			want:  `[{"id":1,"name":"mallet","note":null}]`,
			table: "select name, note from api.items where id = 1", rows: `[{"name":"mallet","note":null}]`,
		},
		{
			name:   "an empty array changes nothing and answers 204",
			method: "PATCH", path: "/items", body: `[]`,
			status: 204, contentRange: "*/*", unchanged: true,
		},
		{
			name:   "an array of an empty object changes nothing and answers 204",
			method: "PATCH", path: "/items", body: `[{}]`,
			status: 204, contentRange: "*/*", unchanged: true,
		},
		{
			name:   "an empty object with return=representation answers 200 and an empty array",
			method: "PATCH", path: "/items?select=id", body: `{}`, headers: rep,
			status: 200, contentRange: "*/*", applied: []string{"return=representation"}, want: `[]`, unchanged: true,
		},
		{
			name:   "an empty array with columns= changes nothing",
			method: "PATCH", path: "/items?columns=name", body: `[]`,
			status: 204, contentRange: "*/*", unchanged: true,
		},
	}, nil)
	runErrorCases(t, s, []errorCase{
		{name: "rows with different keys", method: "PATCH", path: "/items?id=eq.1", body: `[{"name":"mallet"},{"note":"b"}]`,
			status: 400, code: "PGRST102",
			want: `{"code":"PGRST102","message":"All object keys must match","details":null,"hint":null}`},
		{name: "an array of something else than objects", method: "PATCH", path: "/items?id=eq.1", body: `[{"name":"mallet"},3]`,
			status: 400, code: "PGRST102",
			want: `{"code":"PGRST102","message":"All object keys must match","details":null,"hint":null}`},
	})
}

// TestPutWithAnArrayBody: PUT puts the row of the array whose key is the
// URL's and leaves the others out (UpsertSpec "it only puts the first
// element"); when no row has that key the answer is PGRST115.
func TestPutWithAnArrayBody(t *testing.T) {
	s := startServer(t)
	rep := []string{"Prefer", "return=representation"}
	runWriteCases(t, s, "", []writeCase{
		{
			name:   "only the row with the URL's key is put",
			method: "PUT", path: "/items?id=eq.1&select=id,name", body: `[{"id":1,"name":"mallet"},{"id":9,"name":"saw"}]`,
			headers: rep, status: 200, applied: []string{"return=representation"}, want: `[{"id":1,"name":"mallet"}]`,
			table: "select id, name from api.items where id in (1, 9) order by id", rows: `[{"id":1,"name":"mallet"}]`,
		},
		{
			name:   "the matching row need not be the first",
			method: "PUT", path: "/items?id=eq.9&select=id,name", body: `[{"id":1,"name":"mallet"},{"id":9,"name":"saw"}]`,
			headers: append(rep, singular...), status: 201, applied: []string{"return=representation"}, want: `{"id":9,"name":"saw"}`,
			table: "select id, name from api.items where id in (1, 9) order by id", rows: `[{"id":1,"name":"hammer"},{"id":9,"name":"saw"}]`,
		},
	}, nil)
	mismatch := `{"code":"PGRST115","message":"Payload values do not match URL in primary key column(s)","details":null,"hint":null}`
	runErrorCases(t, s, []errorCase{
		{name: "no row has the URL's key", method: "PUT", path: "/items?id=eq.1", body: `[{"id":9,"name":"saw"}]`,
			status: 400, code: "PGRST115", want: mismatch},
		{name: "an empty array", method: "PUT", path: "/items?id=eq.1", body: `[]`,
			status: 400, code: "PGRST115", want: mismatch},
		{name: "a row without the key column", method: "PUT", path: "/items?id=eq.1", body: `[{"name":"saw"}]`,
			status: 400, code: "PGRST115", want: mismatch},
		{name: "an empty object", method: "PUT", path: "/items?id=eq.1", body: `{}`,
			status: 400, code: "PGRST115", want: mismatch},
		{name: "limit", method: "PUT", path: "/items?id=eq.1&limit=1", body: `[{"id":1,"name":"saw"}]`,
			status: 400, code: "PGRST114",
			want: `{"code":"PGRST114","message":"limit/offset querystring parameters are not allowed for PUT","details":null,"hint":null}`},
		{name: "a filter on another column", method: "PUT", path: "/items?name=eq.saw", body: `[{"id":1,"name":"saw"}]`,
			status: 405, code: "PGRST105",
			want: `{"code":"PGRST105","message":"Filters must include all and only primary key columns with 'eq' operators","details":null,"hint":null}`},
	})
}

// TestEmptyWrites: the statuses PostgREST gives writes of no rows.
func TestEmptyWrites(t *testing.T) {
	s := startServer(t)
	runWriteCases(t, s, "", []writeCase{
		{
			name:   "an empty array insert answers 201",
			method: "POST", path: "/items", body: `[]`,
			status: 201, contentRange: "*/*", unchanged: true,
		},
		{
			name:   "an empty array insert with return=representation answers 201 and an empty array",
			method: "POST", path: "/items", body: `[]`, headers: []string{"Prefer", "return=representation"},
			status: 201, contentRange: "*/*", applied: []string{"return=representation"}, want: `[]`, unchanged: true,
		},
		{
			name:   "an empty array merge answers 200, as nothing was inserted",
			method: "POST", path: "/items", body: `[]`, headers: []string{"Prefer", "resolution=merge-duplicates, return=representation"},
			status: 200, contentRange: "*/*", applied: []string{"resolution=merge-duplicates", "return=representation"}, want: `[]`, unchanged: true,
		},
		{
			name:   "an empty array merge without a representation answers 200 too",
			method: "POST", path: "/items", body: `[]`, headers: []string{"Prefer", "resolution=merge-duplicates"},
			status: 200, contentRange: "*/*", applied: []string{"resolution=merge-duplicates"}, unchanged: true,
		},
		{
			name:   "an empty array that ignores duplicates answers 201",
			method: "POST", path: "/items", body: `[]`, headers: []string{"Prefer", "resolution=ignore-duplicates, return=representation"},
			status: 201, contentRange: "*/*", applied: []string{"resolution=ignore-duplicates", "return=representation"}, want: `[]`, unchanged: true,
		},
		{
			name:   "a merge that only updates answers 200",
			method: "POST", path: "/items?select=id,name", body: `[{"id":1,"name":"mallet"}]`,
			headers: []string{"Prefer", "resolution=merge-duplicates, return=representation"},
			status:  200, contentRange: "*/*", applied: []string{"resolution=merge-duplicates", "return=representation"},
			want: `[{"id":1,"name":"mallet"}]`, table: "select name from api.items where id = 1", rows: `[{"name":"mallet"}]`,
		},
		{
			name:   "an empty PATCH answers 204",
			method: "PATCH", path: "/items", body: `{}`,
			status: 204, contentRange: "*/*", unchanged: true,
		},
	}, nil)
}

// TestOrderOfWrittenRows: ?order= orders the rows a write returns, as
// PostgREST's read of the written rows does.
func TestOrderOfWrittenRows(t *testing.T) {
	s := startServer(t)
	rep := []string{"Prefer", "return=representation"}
	cases := []struct {
		name, method, path, body string
		headers                  []string
		status                   int
		want                     string
	}{
		{"a DELETE in descending qty order", http.MethodDelete, "/order_lines?select=order_id,line,qty&order=qty.desc", "",
			rep, 200, `[{"order_id":1,"line":2,"qty":100},{"order_id":1,"line":1,"qty":2},{"order_id":2,"line":1,"qty":1}]`},
		{"a DELETE in descending order of a column not selected", http.MethodDelete, "/order_lines?select=order_id,line&order=item_id.desc", "",
			rep, 200, `[{"order_id":2,"line":1},{"order_id":1,"line":2},{"order_id":1,"line":1}]`},
		{"a PATCH in descending id order", http.MethodPatch, "/items?id=lt.4&select=id,note&order=id.desc", `{"note":"x"}`,
			rep, 200, `[{"id":3,"note":"x"},{"id":2,"note":"x"},{"id":1,"note":"x"}]`},
		{"a PATCH ordered by an embedded parent", http.MethodPatch,
			"/items?select=id,categories(name)&order=categories(name).desc,id.desc", `{"note":"x"}`,
			rep, 200, `[{"id":4,"categories":{"name":"toys"}},{"id":3,"categories":{"name":"toys"}},{"id":2,"categories":{"name":"tools"}},{"id":1,"categories":{"name":"tools"}}]`},
		{"an upsert in descending id order", http.MethodPost, "/items?select=id,name&order=id.desc",
			`[{"id":1,"name":"mallet"},{"id":7,"name":"saw"},{"id":2,"name":"tack"}]`,
			[]string{"Prefer", "return=representation, resolution=merge-duplicates"}, 201,
			`[{"id":7,"name":"saw"},{"id":2,"name":"tack"},{"id":1,"name":"mallet"}]`},
		{"an insert in ascending name order", http.MethodPost, "/items?select=name&order=name",
			`[{"name":"saw"},{"name":"awl"},{"name":"file"}]`, rep, 201,
			`[{"name":"awl"},{"name":"file"},{"name":"saw"}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reset(t)
			res := s.do(t, c.method, c.path, c.body, c.headers...)
			res.expectStatus(t, c.status)
			// Compared as JSON text, so the order of the rows counts.
			jsonEqual(t, "body", res.Body, c.want)
		})
	}
}
