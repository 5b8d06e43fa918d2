package write

import (
	"net/http"
	"testing"
)

// singular is the Accept header of a single-object response.
var singular = []string{"Accept", "application/vnd.pgrst.object+json"}

// TestSingularWrites: Accept: application/vnd.pgrst.object+json holds
// every POST, PATCH, PUT and DELETE to exactly one row, with or without a
// representation, as PostgREST's SingularSpec shows: another row count is
// 406 PGRST116 with PostgREST's message, and the write is rolled back even
// when Prefer: tx=commit asks to keep it.
func TestSingularWrites(t *testing.T) {
	s := startServer(t, "db_tx_end commit-allow-override")
	rows := func(n string) string {
		return `{"code":"PGRST116","message":"Cannot coerce the result to a single JSON object",` +
			`"details":"The result contains ` + n + ` rows","hint":null}`
	}
	with := func(prefer string) []string {
		h := append([]string(nil), singular...)
		if prefer != "" {
			h = append(h, "Prefer", prefer)
		}
		return h
	}
	runErrorCases(t, s, []errorCase{
		{name: "a PATCH of four rows", method: "PATCH", path: "/items", body: `{"note":"zzz"}`,
			headers: with("tx=commit"), status: 406, code: "PGRST116", want: rows("4")},
		{name: "a PATCH of four rows with return=representation", method: "PATCH", path: "/items", body: `{"note":"zzz"}`,
			headers: with("tx=commit, return=representation"), status: 406, code: "PGRST116", want: rows("4")},
		{name: "a PATCH of four rows with return=minimal", method: "PATCH", path: "/items", body: `{"note":"zzz"}`,
			headers: with("tx=commit, return=minimal"), status: 406, code: "PGRST116", want: rows("4")},
		{name: "a PATCH of no row", method: "PATCH", path: "/items?id=gt.0&id=lt.0", body: `{"note":"zzz"}`,
			headers: with(""), status: 406, code: "PGRST116", want: rows("0")},
		{name: "a PATCH of no row with return=representation", method: "PATCH", path: "/items?id=gt.0&id=lt.0", body: `{"note":"zzz"}`,
			headers: with("return=representation"), status: 406, code: "PGRST116", want: rows("0")},
		{name: "a POST of two rows", method: "POST", path: "/items", body: `[{"name":"saw"},{"name":"file"}]`,
			headers: with("tx=commit"), status: 406, code: "PGRST116", want: rows("2")},
		{name: "a POST of two rows with return=representation", method: "POST", path: "/items", body: `[{"name":"saw"},{"name":"file"}]`,
			headers: with("tx=commit, return=representation"), status: 406, code: "PGRST116", want: rows("2")},
		{name: "a POST of two rows with return=minimal", method: "POST", path: "/items", body: `[{"name":"saw"},{"name":"file"}]`,
			headers: with("tx=commit, return=minimal"), status: 406, code: "PGRST116", want: rows("2")},
		{name: "a POST of two rows with return=headers-only", method: "POST", path: "/items", body: `[{"name":"saw"},{"name":"file"}]`,
			headers: with("tx=commit, return=headers-only"), status: 406, code: "PGRST116", want: rows("2")},
		{name: "a POST of no row", method: "POST", path: "/items", body: `[]`,
			headers: with(""), status: 406, code: "PGRST116", want: rows("0")},
		{name: "a POST of no row with return=representation", method: "POST", path: "/items", body: `[]`,
			headers: with("return=representation"), status: 406, code: "PGRST116", want: rows("0")},
		{name: "an upsert of two rows", method: "POST", path: "/items", body: `[{"id":1,"name":"mallet"},{"id":9,"name":"file"}]`,
			headers: with("tx=commit, resolution=merge-duplicates"), status: 406, code: "PGRST116", want: rows("2")},
		{name: "a DELETE of three rows", method: "DELETE", path: "/order_lines?qty=gt.0",
			headers: with("tx=commit"), status: 406, code: "PGRST116", want: rows("3")},
		{name: "a DELETE of three rows with return=representation", method: "DELETE", path: "/order_lines?select=line",
			headers: with("tx=commit, return=representation"), status: 406, code: "PGRST116", want: rows("3")},
		{name: "a DELETE of no row", method: "DELETE", path: "/items?id=lt.0",
			headers: with(""), status: 406, code: "PGRST116", want: rows("0")},
		{name: "a DELETE of no row with return=representation", method: "DELETE", path: "/items?id=lt.0",
			headers: with("return=representation"), status: 406, code: "PGRST116", want: rows("0")},
	})

	runWriteCases(t, s, "", []writeCase{
		{
			name:   "a PATCH of one row with return=representation answers the object",
			method: "PATCH", path: "/items?id=eq.1&select=id,name", body: `{"name":"mallet"}`,
			headers: with("return=representation"), status: 200, contentRange: "0-0/*",
			applied: []string{"return=representation"}, want: `{"id":1,"name":"mallet"}`,
			table: "select name from api.items where id = 1", rows: `[{"name":"mallet"}]`,
		},
		{
			name:   "a PATCH of one row with return=minimal answers 204",
			method: "PATCH", path: "/items?id=eq.1", body: `{"name":"mallet"}`,
			headers: with("return=minimal"), status: 204, contentRange: "0-0/*", applied: []string{"return=minimal"},
			table: "select name from api.items where id = 1", rows: `[{"name":"mallet"}]`,
		},
		{
			name:   "a POST of one row in an array with return=representation answers the object",
			method: "POST", path: "/items?select=id,name", body: `[{"name":"saw"}]`,
			headers: with("return=representation"), status: 201, contentRange: "*/*",
			applied: []string{"return=representation"}, want: `{"id":5,"name":"saw"}`,
			table: "select id, name from api.items where id > 4", rows: `[{"id":5,"name":"saw"}]`,
		},
		{
			name:   "a POST of one row with return=minimal answers 201 without a body",
			method: "POST", path: "/items", body: `[{"name":"saw"}]`,
			headers: with("return=minimal"), status: 201, contentRange: "*/*", applied: []string{"return=minimal"},
			table: "select id, name from api.items where id > 4", rows: `[{"id":5,"name":"saw"}]`,
		},
		{
			name:   "a DELETE of one row with return=minimal answers 204",
			method: "DELETE", path: "/items?id=eq.4", headers: with("return=minimal"),
			status: 204, contentRange: "*/*", applied: []string{"return=minimal"},
			table: "select id from api.items order by id", rows: `[{"id":1},{"id":2},{"id":3}]`,
		},
		{
			name:   "a PUT that inserts with return=representation answers the object with 201",
			method: "PUT", path: "/items?id=eq.7&select=id,name", body: `[{"id":7,"name":"saw"}]`,
			headers: with("return=representation"), status: 201,
			applied: []string{"return=representation"}, want: `{"id":7,"name":"saw"}`,
			table: "select id, name from api.items where id > 4", rows: `[{"id":7,"name":"saw"}]`,
		},
	}, nil)

	t.Run("the error body is JSON, not the singular media type", func(t *testing.T) {
		reset(t)
		res := s.do(t, http.MethodPatch, "/items", `{"note":"zzz"}`, with("")...)
		res.expectError(t, 406, "PGRST116")
		res.expectHeader(t, "Content-Type", "application/json; charset=utf-8")
	})
}
