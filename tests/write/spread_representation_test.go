package write

import (
	"net/http"
	"testing"
)

// TestSpreadRepresentation shapes the rows a write returns with spreads,
// to-one and to-many, as a read of them would, with aggregates off: to-many
// spreads do not need them.
func TestSpreadRepresentation(t *testing.T) {
	s := startServer(t)
	repr := append([]string{"Prefer", "return=representation"}, asUser(t)...)
	cases := []struct {
		name, method, path, body string
		status                   int
		want                     string
	}{
		{
			name: "POST lifts the new row's category with a to-one spread", method: http.MethodPost,
			path: "/items?select=name,...categories(category:name)", body: `{"name":"saw","category_id":2}`,
			status: http.StatusCreated, want: `[{"name":"saw","category":"toys"}]`,
		},
		{
			name: "POST gives empty arrays for a to-many spread without rows", method: http.MethodPost,
			path: "/items?select=name,...order_lines(qty)", body: `{"name":"saw"}`,
			status: http.StatusCreated, want: `[{"name":"saw","qty":[]}]`,
		},
		{
			name: "PATCH gives the updated row's children as correlated arrays", method: http.MethodPatch,
			path:   "/categories?id=eq.1&select=name,...items(item:name,price)&items.order=price.desc",
			body:   `{"name":"hand tools"}`,
			status: http.StatusOK, want: `[{"name":"hand tools","item":["hammer","nail"],"price":[12.50,0.10]}]`,
		},
		{
			// The embedded levels read the tables as the statement found
			// them, as PostgreSQL runs a data-modifying WITH (and so
			// PostgREST): the item seen through the lines keeps its old name.
			name: "PATCH nests a to-one spread inside a to-many spread", method: http.MethodPatch,
			path:   "/items?id=eq.1&select=name,...order_lines(qty,...items(again:name))",
			body:   `{"name":"mallet"}`,
			status: http.StatusOK, want: `[{"name":"mallet","qty":[2],"again":["hammer"]}]`,
		},
		{
			name: "DELETE lifts the deleted line's item", method: http.MethodDelete,
			path:   "/order_lines?order_id=eq.2&select=qty,...items(item:name)",
			status: http.StatusOK, want: `[{"qty":1,"item":"ball"}]`,
		},
		{
			name: "DELETE gives the deleted row's children as arrays", method: http.MethodDelete,
			path:   "/items?id=eq.4&select=name,...order_lines(qty)",
			status: http.StatusOK, want: `[{"name":"kite","qty":[]}]`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reset(t)
			res := s.do(t, c.method, c.path, c.body, repr...)
			res.expectStatus(t, c.status)
			res.expectBody(t, c.want)
		})
	}
	t.Run("an aggregate in a to-many spread of a write's select is refused before the write", func(t *testing.T) {
		reset(t)
		before := snapshot(t, "api.categories")
		res := s.do(t, http.MethodPatch, "/categories?id=eq.1&select=name,...items(id.count())", `{"name":"x"}`, repr...)
		res.expectError(t, http.StatusBadRequest, "PGRST123")
		if after := snapshot(t, "api.categories"); after != before {
			t.Errorf("the refused PATCH changed categories:\n%s\nwas\n%s", after, before)
		}
	})
}
