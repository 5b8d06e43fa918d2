package write

import (
	"net/http"
	"testing"
)

func TestOptionsAllow(t *testing.T) {
	s := startServer(t)
	cases := []struct {
		name, path, allow string
	}{
		{"a table with a primary key takes every write", "/items", "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE"},
		{"a table with a composite primary key takes every write", "/order_lines", "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE"},
		{"a table without a primary key takes no PUT", "/logs", "OPTIONS,GET,HEAD,POST,PATCH,DELETE"},
		{"a view that is not updatable is read-only", "/category_counts", "OPTIONS,GET,HEAD"},
		{"a volatile function is POST only", "/rpc/bump_price", "OPTIONS,POST"},
		{"the root is read-only", "/", "OPTIONS,GET,HEAD"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := s.do(t, http.MethodOptions, c.path, "")
			res.expectStatus(t, 200)
			res.expectHeader(t, "Allow", c.allow)
			res.expectHeader(t, "Access-Control-Allow-Origin", "*")
			if len(res.Body) != 0 {
				t.Errorf("body %q", res.Body)
			}
		})
	}
	t.Run("an unknown table is 404 PGRST205", func(t *testing.T) {
		res := s.do(t, http.MethodOptions, "/itemz", "")
		res.expectError(t, 404, "PGRST205")
	})
}

func TestWritesThroughAnUpdatableView(t *testing.T) {
	s := startServer(t)
	// Order lines refer to items 1, 2 and 3: without them any item may go.
	runWriteCases(t, s, "delete from api.order_lines", []writeCase{
		{
			name:   "POST through the view inserts into the table with its defaults",
			method: "POST", path: "/cheap_items?select=id,name,price", body: `{"name":"pin","price":1}`,
			headers: []string{"Prefer", "return=representation"}, applied: []string{"return=representation"}, status: 201,
			want: `[{"id":5,"name":"pin","price":1}]`, contentRange: "*/*",
			table: itemCols + " where id = 5",
			rows:  `[{"id":5,"name":"pin","price":1,"sku":null,"code":1004,"note":"none","category_id":null}]`,
		},
		{
			name:   "a bulk POST through the view inserts every row",
			method: "POST", path: "/cheap_items", body: `[{"name":"pin","price":1},{"name":"tack","price":2}]`,
			status: 201, contentRange: "*/*",
			table: "select id, name from api.items where id > 4 order by id",
			rows:  `[{"id":5,"name":"pin"},{"id":6,"name":"tack"}]`,
		},
		{
			name:   "return=headers-only through the view locates the row by the key the view shows",
			method: "POST", path: "/cheap_items", body: `{"name":"pin","price":1}`,
			headers: []string{"Prefer", "return=headers-only"}, applied: []string{"return=headers-only"},
			status: 201, contentRange: "*/*", location: "/cheap_items?id=eq.5",
			table: "select id, name from api.items where id > 4", rows: `[{"id":5,"name":"pin"}]`,
		},
		{
			name:   "PUT through the view upserts on the key the view shows",
			method: "PUT", path: "/cheap_items?id=eq.2", body: `{"id":2,"name":"tack","price":0.2}`,
			status: 204,
			table:  "select id, name, price from api.items where id = 2", rows: `[{"id":2,"name":"tack","price":0.2}]`,
		},
		{
			name:   "merge-duplicates through the view takes the key the view shows",
			method: "POST", path: "/cheap_items", body: `[{"id":2,"name":"tack","price":0.2}]`,
			headers: []string{"Prefer", "resolution=merge-duplicates"}, applied: []string{"resolution=merge-duplicates"}, status: 200, contentRange: "*/*",
			table: "select id, name, price from api.items where id = 2", rows: `[{"id":2,"name":"tack","price":0.2}]`,
		},
		{
			name:   "PUT through the view of a new key with return=representation answers 201",
			method: "PUT", path: "/cheap_items?id=eq.9&select=id,name", body: `{"id":9,"name":"tack","price":0.2}`,
			headers: []string{"Prefer", "return=representation"}, applied: []string{"return=representation"}, status: 201, want: `[{"id":9,"name":"tack"}]`,
			table: "select id, name, price from api.items where id = 9", rows: `[{"id":9,"name":"tack","price":0.2}]`,
		},
		{
			name:   "merge-duplicates through the view with on_conflict inserts and updates: 201",
			method: "POST", path: "/cheap_items?on_conflict=id&select=id,name", body: `[{"id":2,"name":"tack","price":0.2},{"id":9,"name":"pin","price":1}]`,
			headers: []string{"Prefer", "resolution=merge-duplicates, return=representation"},
			applied: []string{"resolution=merge-duplicates", "return=representation"}, status: 201, contentRange: "*/*",
			want:  `[{"id":2,"name":"tack"},{"id":9,"name":"pin"}]`,
			table: "select id, name, price from api.items where id in (2, 9) order by id", rows: `[{"id":2,"name":"tack","price":0.2},{"id":9,"name":"pin","price":1}]`,
		},
		{
			name:   "PATCH through the view updates the table's row",
			method: "PATCH", path: "/cheap_items?id=eq.2", body: `{"price":2}`,
			status: 204, contentRange: "0-0/*",
			table: "select id, price from api.items where id = 2", rows: `[{"id":2,"price":2}]`,
		},
		{
			name:   "PATCH through the view reaches only the rows the view shows",
			method: "PATCH", path: "/cheap_items?id=eq.1", body: `{"price":2}`,
			status: 204, contentRange: "*/*",
			table: itemCols + " order by id", rows: seedItems,
		},
		{
			name:   "PATCH through the view with return=representation reads the view",
			method: "PATCH", path: "/cheap_items?price=lt.1&select=id,price", body: `{"price":0.5}`,
			headers: []string{"Prefer", "return=representation"}, applied: []string{"return=representation"}, status: 200,
			want: `[{"id":2,"price":0.5}]`, contentRange: "0-0/*",
			table: "select id, price from api.items where id = 2", rows: `[{"id":2,"price":0.5}]`,
		},
		{
			name:   "DELETE through the view reaches only the rows the view shows",
			method: "DELETE", path: "/cheap_items?id=eq.4", status: 204, contentRange: "*/*",
			table: itemCols + " order by id", rows: seedItems,
		},
		{
			name:   "DELETE through the view deletes the table's row",
			method: "DELETE", path: "/cheap_items?name=eq.ball&select=id,name", headers: []string{"Prefer", "return=representation"}, applied: []string{"return=representation"},
			status: 200, want: `[{"id":3,"name":"ball"}]`, contentRange: "*/*",
			table: itemIDs, rows: `[{"id":1},{"id":2},{"id":4}]`,
		},
	}, nil)
	runErrorCases(t, s, []errorCase{
		{name: "a negative price through the view is 400 23514", method: "POST", path: "/cheap_items",
			body: `{"name":"pin","price":-1}`, status: 400, code: "23514"},
		{name: "a column the view does not show is 400 PGRST204", method: "POST", path: "/cheap_items",
			body: `{"name":"pin","sku":"P-1"}`, status: 400, code: "PGRST204",
			want: `{"code":"PGRST204","message":"Could not find the 'sku' column of 'cheap_items' in the schema cache","details":null,"hint":null}`},
	})
}
