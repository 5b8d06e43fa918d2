package write

import (
	"net/http"
	"slices"
	"testing"
)

// filterCases are filters of the query language and the seed items each
// matches:
//
//	1 hammer 12.50 H-1 cat 1 | 2 nail 0.10 N-1 cat 1
//	3 ball    3.00 B-1 cat 2 | 4 kite 25.00 -   cat 2 note windy
var filterCases = []struct {
	name  string
	query string
	ids   []int
}{
	{"eq picks one row", "id=eq.1", []int{1}},
	{"neq picks the others", "id=neq.1", []int{2, 3, 4}},
	{"gt compares numbers", "price=gt.10", []int{1, 4}},
	{"gte includes the bound", "price=gte.3", []int{1, 3, 4}},
	{"lt compares numbers", "price=lt.3", []int{2}},
	{"lte includes the bound", "price=lte.3", []int{2, 3}},
	{"in lists values", "id=in.(1,3)", []int{1, 3}},
	{"in takes quoted values", `name=in.("hammer","ball")`, []int{1, 3}},
	{"not.in negates a list", "id=not.in.(1,3)", []int{2, 4}},
	{"is.null finds nulls", "sku=is.null", []int{4}},
	{"not.is.null finds the rest", "sku=not.is.null", []int{1, 2, 3}},
	{"isdistinct treats null as a value", "sku=isdistinct.H-1", []int{2, 3, 4}},
	{"like takes * as a wildcard", "name=like.*a*", []int{1, 2, 3}},
	{"ilike ignores case", "name=ilike.H*", []int{1}},
	{"match is a regular expression", "name=match.^k", []int{4}},
	{"imatch is a case-insensitive regular expression", "name=imatch.^N", []int{2}},
	{"fts searches text", "name=fts.ball", []int{3}},
	{"eq(any) matches any of an array", "id=eq(any).{1,2}", []int{1, 2}},
	{"several filters are and-ed", "note=eq.windy&category_id=eq.2", []int{4}},
	{"or combines conditions", "or=(price.lt.1,name.eq.kite)", []int{2, 4}},
	{"and groups conditions", "and=(category_id.eq.2,price.lt.10)", []int{3}},
	{"not.or negates a group", "not.or=(id.eq.1,id.eq.2)", []int{3, 4}},
	{"logic trees nest", "or=(id.eq.1,and(category_id.eq.2,sku.is.null))", []int{1, 4}},
	{"a filter matching nothing touches nothing", "id=eq.99", nil},
}

// idsOf reads the "id" values of a JSON array of rows.
func idsOf(t testing.TB, b []byte) []int {
	t.Helper()
	var ids []int
	for _, r := range decodeRows(t, b) {
		ids = append(ids, int(r["id"].(float64)))
	}
	return ids
}

func TestPatchWithTheFilterLanguage(t *testing.T) {
	s := startServer(t)
	for _, c := range filterCases {
		t.Run(c.name, func(t *testing.T) {
			reset(t)
			res := s.do(t, http.MethodPatch, "/items?"+c.query, `{"note":"patched"}`)
			res.expectStatus(t, 204)
			res.expectNoBody(t)
			if got := idsOf(t, sqlJSON(t, "select id from api.items where note = 'patched' order by id")); !slices.Equal(got, c.ids) {
				t.Errorf("patched ids %v, want %v", got, c.ids)
			}
			want := "*/*"
			if len(c.ids) > 0 {
				want = "0-" + itoa(len(c.ids)-1) + "/*"
			}
			res.expectHeader(t, "Content-Range", want)
		})
	}
}

func TestDeleteWithTheFilterLanguage(t *testing.T) {
	s := startServer(t)
	for _, c := range filterCases {
		t.Run(c.name, func(t *testing.T) {
			reset(t)
			pgtestExec(t, "delete from api.order_lines")
			res := s.do(t, http.MethodDelete, "/items?"+c.query, "")
			res.expectStatus(t, 204)
			res.expectNoBody(t)
			res.expectHeader(t, "Content-Range", "*/*")
			var want []int
			for id := 1; id <= 4; id++ {
				if !slices.Contains(c.ids, id) {
					want = append(want, id)
				}
			}
			if got := idsOf(t, sqlJSON(t, "select id from api.items order by id")); !slices.Equal(got, want) {
				t.Errorf("remaining ids %v, want %v", got, want)
			}
		})
	}
}

func TestPatch(t *testing.T) {
	s := startServer(t)
	runWriteCases(t, s, "", []writeCase{
		{
			name:   "PATCH of one row answers 204 with Content-Range 0-0/*",
			method: "PATCH", path: "/items?id=eq.1", body: `{"price":20,"note":"sale"}`,
			status: 204, contentRange: "0-0/*",
			table: itemCols + " where id = 1",
			rows:  `[{"id":1,"name":"hammer","price":20,"sku":"H-1","code":1000,"note":"sale","category_id":1}]`,
		},
		{
			name:   "PATCH matching no row answers 204 with Content-Range */*",
			method: "PATCH", path: "/items?id=eq.99", body: `{"price":20}`,
			status: 204, contentRange: "*/*",
			table: itemCols + " order by id", rows: seedItems,
		},
		{
			name:   "count=exact adds the number of updated rows",
			method: "PATCH", path: "/items?price=lt.5", body: `{"note":"cheap"}`, headers: []string{"Prefer", "count=exact"},
			status: 204, contentRange: "0-1/2", applied: []string{"count=exact"},
			table: "select id from api.items where note = 'cheap' order by id", rows: `[{"id":2},{"id":3}]`,
		},
		{
			name:   "return=representation answers 200 with the updated rows shaped by select",
			method: "PATCH", path: "/items?price=lt.5&select=id,price,note", body: `{"note":"cheap"}`, headers: []string{"Prefer", "return=representation"},
			status: 200, contentRange: "0-1/*", applied: []string{"return=representation"},
			want:  `[{"id":2,"price":0.1,"note":"cheap"},{"id":3,"price":3,"note":"cheap"}]`,
			table: "select id from api.items where note = 'cheap' order by id", rows: `[{"id":2},{"id":3}]`,
		},
		{
			name:   "return=representation embeds the updated rows' category",
			method: "PATCH", path: "/items?id=eq.3&select=id,category:categories(name)", body: `{"category_id":1}`, headers: []string{"Prefer", "return=representation"},
			status: 200, contentRange: "0-0/*", applied: []string{"return=representation"},
			want:  `[{"id":3,"category":{"name":"tools"}}]`,
			table: "select id, category_id from api.items where id = 3", rows: `[{"id":3,"category_id":1}]`,
		},
		{
			name:   "return=representation of no row is an empty array",
			method: "PATCH", path: "/items?id=eq.99&select=id", body: `{"note":"x"}`, headers: []string{"Prefer", "return=representation"},
			status: 200, contentRange: "*/*", applied: []string{"return=representation"},
			want:  `[]`,
			table: itemCols + " order by id", rows: seedItems,
		},
		{
			name:   "the singular media type returns the one updated row as an object",
			method: "PATCH", path: "/items?id=eq.2&select=id,note", body: `{"note":"x"}`,
			headers: []string{"Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json"},
			status:  200, contentRange: "0-0/*", applied: []string{"return=representation"},
			want:  `{"id":2,"note":"x"}`,
			table: "select id, note from api.items where id = 2", rows: `[{"id":2,"note":"x"}]`,
		},
		{
			name:   "an empty object updates nothing",
			method: "PATCH", path: "/items?id=eq.1", body: `{}`,
			status: 204, contentRange: "*/*",
			table: itemCols + " order by id", rows: seedItems,
		},
		{
			name:   "a form body sets columns from text",
			method: "PATCH", path: "/items?id=eq.1", body: "price=1.5&note=form", headers: []string{"Content-Type", "application/x-www-form-urlencoded"},
			status: 204, contentRange: "0-0/*",
			table: "select id, price, note from api.items where id = 1", rows: `[{"id":1,"price":1.5,"note":"form"}]`,
		},
		{
			name:   "an explicit null sets the column to null",
			method: "PATCH", path: "/items?id=eq.1", body: `{"sku":null}`,
			status: 204, contentRange: "0-0/*",
			table: "select id, sku from api.items where id = 1", rows: `[{"id":1,"sku":null}]`,
		},
		{
			name:   "limit with order updates only the first rows in that order",
			method: "PATCH", path: "/items?order=id.desc&limit=2", body: `{"note":"last"}`,
			status: 204, contentRange: "0-1/*",
			table: "select id from api.items where note = 'last' order by id", rows: `[{"id":3},{"id":4}]`,
		},
		{
			name:   "limit with order applies after the filters",
			method: "PATCH", path: "/items?category_id=eq.1&order=price.asc&limit=1", body: `{"note":"cheapest"}`,
			status: 204, contentRange: "0-0/*",
			table: "select id from api.items where note = 'cheapest'", rows: `[{"id":2}]`,
		},
		{
			name:   "limit and offset with order skip the first rows",
			method: "PATCH", path: "/items?order=id&limit=2&offset=1", body: `{"note":"middle"}`,
			status: 204, contentRange: "0-1/*",
			table: "select id from api.items where note = 'middle' order by id", rows: `[{"id":2},{"id":3}]`,
		},
		{
			name:   "an offset alone with order skips the first rows",
			method: "PATCH", path: "/items?order=id&offset=3", body: `{"note":"tail"}`,
			status: 204, contentRange: "0-0/*",
			table: "select id from api.items where note = 'tail' order by id", rows: `[{"id":4}]`,
		},
		{
			name:   "max-affected with handling=strict lets a write within the bound through",
			method: "PATCH", path: "/items?price=lt.5", body: `{"note":"two"}`, headers: []string{"Prefer", "handling=strict, max-affected=2"},
			status: 204, contentRange: "0-1/*", applied: []string{"handling=strict", "max-affected=2"},
			table: "select id from api.items where note = 'two' order by id", rows: `[{"id":2},{"id":3}]`,
		},
		{
			name:   "max-affected with handling=lenient is not applied",
			method: "PATCH", path: "/items?price=lt.5", body: `{"note":"two"}`, headers: []string{"Prefer", "handling=lenient, max-affected=1"},
			status: 204, contentRange: "0-1/*", applied: []string{"handling=lenient"},
			table: "select id from api.items where note = 'two' order by id", rows: `[{"id":2},{"id":3}]`,
		},
		{
			name:   "max-affected without handling=strict is not applied",
			method: "PATCH", path: "/items?price=lt.5", body: `{"note":"two"}`, headers: []string{"Prefer", "max-affected=1"},
			status: 204, contentRange: "0-1/*",
			table: "select id from api.items where note = 'two' order by id", rows: `[{"id":2},{"id":3}]`,
		},
		{
			name:   "handling=lenient ignores a preference it does not know",
			method: "PATCH", path: "/items?id=eq.1", body: `{"note":"x"}`, headers: []string{"Prefer", "handling=lenient, frobnicate"},
			status: 204, contentRange: "0-0/*",
			applied: []string{"handling=lenient"},
			table:   "select id, note from api.items where id = 1", rows: `[{"id":1,"note":"x"}]`,
		},
		{
			name:   "handling=lenient ignores a known preference with an unknown value",
			method: "PATCH", path: "/items?id=eq.1", body: `{"note":"x"}`, headers: []string{"Prefer", "return=everything"},
			status: 204, contentRange: "0-0/*",
			table: "select id, note from api.items where id = 1", rows: `[{"id":1,"note":"x"}]`,
		},
		{
			name:   "PATCH on a table with a composite key",
			method: "PATCH", path: "/order_lines?order_id=eq.1&line=eq.2", body: `{"qty":3}`,
			status: 204, contentRange: "0-0/*",
			table: "select * from api.order_lines where order_id = 1 order by line",
			rows:  `[{"order_id":1,"line":1,"item_id":1,"qty":2},{"order_id":1,"line":2,"item_id":2,"qty":3}]`,
		},
	}, nil)
}

func TestPatchErrorsLeaveNothingBehind(t *testing.T) {
	s := startServer(t)
	runErrorCases(t, s, []errorCase{
		{name: "taking another row's sku is 409 23505", method: "PATCH", path: "/items?id=eq.2",
			body: `{"sku":"H-1"}`, status: 409, code: "23505",
			want: `{"code":"23505","message":"duplicate key value violates unique constraint \"items_sku_key\"","details":"Key (sku)=(H-1) already exists.","hint":null}`},
		{name: "breaking the price check on the second of two rows is 400 23514", method: "PATCH", path: "/items?price=lt.5",
			body: `{"price":-1}`, status: 400, code: "23514"},
		{name: "a null name is 400 23502", method: "PATCH", path: "/items?id=eq.1",
			body: `{"name":null}`, status: 400, code: "23502"},
		{name: "an unknown category is 409 23503", method: "PATCH", path: "/items?id=eq.1",
			body: `{"category_id":9}`, status: 409, code: "23503",
			want: `{"code":"23503","message":"insert or update on table \"items\" violates foreign key constraint \"items_category_id_fkey\"","details":"Key (category_id)=(9) is not present in table \"categories\".","hint":null}`},
		{name: "renumbering a referenced category is 409 23503", method: "PATCH", path: "/categories?id=eq.1",
			body: `{"id":9}`, headers: asUser(t), status: 409, code: "23503",
			want: `{"code":"23503","message":"update or delete on table \"categories\" violates foreign key constraint \"items_category_id_fkey\" on table \"items\"","details":"Key (id)=(1) is still referenced from table \"items\".","hint":null}`},
		{name: "a body key that is not a column is 400 PGRST204", method: "PATCH", path: "/items?id=eq.1",
			body: `{"colour":"red"}`, status: 400, code: "PGRST204",
			want: `{"code":"PGRST204","message":"Could not find the 'colour' column of 'items' in the schema cache","details":null,"hint":null}`},
		{name: "malformed JSON is 400 PGRST102", method: "PATCH", path: "/items?id=eq.1",
			body: `{"note":`, status: 400, code: "PGRST102",
			want: `{"code":"PGRST102","message":"Empty or invalid json","details":null,"hint":null}`},
		{name: "an empty body is 400 PGRST102", method: "PATCH", path: "/items?id=eq.1",
			headers: []string{"Content-Type", "application/json"}, status: 400, code: "PGRST102"},
		{name: "a text/plain body is 415 PGRST107", method: "PATCH", path: "/items?id=eq.1",
			body: "note=x", headers: []string{"Content-Type", "text/plain"}, status: 415, code: "PGRST107"},
		{name: "the singular media type over two updated rows is 406 PGRST116 and rolls back", method: "PATCH", path: "/items?price=lt.5",
			body: `{"note":"x"}`, headers: []string{"Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json"},
			status: 406, code: "PGRST116",
			want: `{"code":"PGRST116","message":"Cannot coerce the result to a single JSON object","details":"The result contains 2 rows","hint":null}`},
		{name: "the singular media type over no updated row is 406 PGRST116", method: "PATCH", path: "/items?id=eq.99",
			body: `{"note":"x"}`, headers: []string{"Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json"},
			status: 406, code: "PGRST116",
			want: `{"code":"PGRST116","message":"Cannot coerce the result to a single JSON object","details":"The result contains 0 rows","hint":null}`},
		{name: "more rows than max-affected with handling=strict is 400 PGRST124 and rolls back", method: "PATCH", path: "/items?price=lt.5",
			body: `{"note":"x"}`, headers: []string{"Prefer", "handling=strict, max-affected=1"},
			status: 400, code: "PGRST124",
			want: `{"code":"PGRST124","message":"Query result exceeds max-affected preference constraint","details":"The query affects 2 rows","hint":null}`},
		{name: "max-affected exceeded with return=representation still rolls back", method: "PATCH", path: "/items",
			body: `{"note":"x"}`, headers: []string{"Prefer", "handling=strict, max-affected=3, return=representation"},
			status: 400, code: "PGRST124",
			want: `{"code":"PGRST124","message":"Query result exceeds max-affected preference constraint","details":"The query affects 4 rows","hint":null}`},
		{name: "handling=strict with an unknown preference is 400 PGRST122", method: "PATCH", path: "/items?id=eq.1",
			body: `{"note":"x"}`, headers: []string{"Prefer", "handling=strict, frobnicate"},
			status: 400, code: "PGRST122",
			want: `{"code":"PGRST122","message":"Invalid preferences given with handling=strict","details":"Invalid preferences: frobnicate","hint":null}`},
		{name: "handling=strict with an invalid value is 400 PGRST122", method: "PATCH", path: "/items?id=eq.1",
			body: `{"note":"x"}`, headers: []string{"Prefer", "handling=strict, return=everything"},
			status: 400, code: "PGRST122",
			want: `{"code":"PGRST122","message":"Invalid preferences given with handling=strict","details":"Invalid preferences: return=everything","hint":null}`},
		{name: "an unknown filter operator is 400 PGRST100", method: "PATCH", path: "/items?id=zz.1",
			body: `{"note":"x"}`, status: 400, code: "PGRST100"},
		{name: "a filter on an unknown column is 400 42703", method: "PATCH", path: "/items?colour=eq.red",
			body: `{"note":"x"}`, status: 400, code: "42703"},
		{name: "anonymous updating where only webuser may is 401 42501", method: "PATCH", path: "/categories?id=eq.1",
			body: `{"name":"x"}`, status: 401, code: "42501",
			want: `{"code":"42501","message":"permission denied for table categories","details":null,"hint":null}`},
		{name: "a view that is not updatable refuses the update with 500 55000", method: "PATCH", path: "/category_counts?category_id=eq.1",
			body: `{"category_id":2}`, status: 500, code: "55000"},
	})
}

// itemIDs lists the ids of the items left.
const itemIDs = "select id from api.items order by id"

func TestDelete(t *testing.T) {
	s := startServer(t)
	// Order lines refer to items 1, 2 and 3: without them any item may go.
	runWriteCases(t, s, "delete from api.order_lines", []writeCase{
		{
			name:   "DELETE of one row answers 204 with Content-Range */*",
			method: "DELETE", path: "/items?id=eq.4", status: 204, contentRange: "*/*",
			table: itemIDs, rows: `[{"id":1},{"id":2},{"id":3}]`,
		},
		{
			name:   "DELETE matching nothing answers 204",
			method: "DELETE", path: "/items?id=eq.99", status: 204, contentRange: "*/*",
			table: itemIDs, rows: `[{"id":1},{"id":2},{"id":3},{"id":4}]`,
		},
		{
			name:   "count=exact gives the number of deleted rows",
			method: "DELETE", path: "/items?price=lt.5", headers: []string{"Prefer", "count=exact"},
			status: 204, contentRange: "*/2", applied: []string{"count=exact"},
			table: itemIDs, rows: `[{"id":1},{"id":4}]`,
		},
		{
			name:   "return=representation answers 200 with the deleted rows shaped by select",
			method: "DELETE", path: "/items?price=lt.5&select=id,name,category:categories(name)", headers: []string{"Prefer", "return=representation"},
			status: 200, contentRange: "*/*", applied: []string{"return=representation"},
			want:  `[{"id":2,"name":"nail","category":{"name":"tools"}},{"id":3,"name":"ball","category":{"name":"toys"}}]`,
			table: itemIDs, rows: `[{"id":1},{"id":4}]`,
		},
		{
			name:   "the singular media type returns the one deleted row as an object",
			method: "DELETE", path: "/items?id=eq.4&select=id,name",
			headers: []string{"Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json"},
			status:  200, contentRange: "*/*", applied: []string{"return=representation"},
			want:  `{"id":4,"name":"kite"}`,
			table: itemIDs, rows: `[{"id":1},{"id":2},{"id":3}]`,
		},
		{
			name:   "limit with order deletes only the first rows in that order",
			method: "DELETE", path: "/items?order=price.desc&limit=2", status: 204, contentRange: "*/*",
			table: itemIDs, rows: `[{"id":2},{"id":3}]`,
		},
		{
			name:   "limit and offset with order skip the first rows",
			method: "DELETE", path: "/items?order=id&limit=1&offset=1", status: 204, contentRange: "*/*",
			table: itemIDs, rows: `[{"id":1},{"id":3},{"id":4}]`,
		},
		{
			name:   "max-affected with handling=strict lets a delete within the bound through",
			method: "DELETE", path: "/items?price=lt.5", headers: []string{"Prefer", "handling=strict, max-affected=2"},
			status: 204, contentRange: "*/*", applied: []string{"handling=strict", "max-affected=2"},
			table: itemIDs, rows: `[{"id":1},{"id":4}]`,
		},
	}, nil)
}

func TestDeleteErrorsLeaveNothingBehind(t *testing.T) {
	s := startServer(t)
	runErrorCases(t, s, []errorCase{
		{name: "deleting an item order lines refer to is 409 23503", method: "DELETE", path: "/items?id=eq.1",
			status: 409, code: "23503",
			want: `{"code":"23503","message":"update or delete on table \"items\" violates foreign key constraint \"order_lines_item_id_fkey\" on table \"order_lines\"","details":"Key (id)=(1) is still referenced from table \"order_lines\".","hint":null}`},
		{name: "deleting every item, some referenced, is 409 23503 and deletes none", method: "DELETE", path: "/items",
			status: 409, code: "23503"},
		{name: "deleting a referenced category is 409 23503", method: "DELETE", path: "/categories?id=eq.2",
			headers: asUser(t), status: 409, code: "23503",
			want: `{"code":"23503","message":"update or delete on table \"categories\" violates foreign key constraint \"items_category_id_fkey\" on table \"items\"","details":"Key (id)=(2) is still referenced from table \"items\".","hint":null}`},
		{name: "more rows than max-affected with handling=strict is 400 PGRST124 and rolls back", method: "DELETE", path: "/logs",
			headers: []string{"Prefer", "handling=strict, max-affected=0"},
			status:  400, code: "PGRST124",
			want: `{"code":"PGRST124","message":"Query result exceeds max-affected preference constraint","details":"The query affects 1 rows","hint":null}`},
		{name: "the singular media type over no deleted row is 406 PGRST116", method: "DELETE", path: "/logs?msg=eq.nothing",
			headers: []string{"Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json"},
			status:  406, code: "PGRST116",
			want: `{"code":"PGRST116","message":"Cannot coerce the result to a single JSON object","details":"The result contains 0 rows","hint":null}`},
		{name: "the singular media type over two deleted rows is 406 PGRST116 and rolls back", method: "DELETE", path: "/order_lines?order_id=eq.1",
			headers: []string{"Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json"},
			status:  406, code: "PGRST116",
			want: `{"code":"PGRST116","message":"Cannot coerce the result to a single JSON object","details":"The result contains 2 rows","hint":null}`},
		{name: "handling=strict with an unknown preference is 400 PGRST122", method: "DELETE", path: "/logs",
			headers: []string{"Prefer", "handling=strict, frobnicate=1"},
			status:  400, code: "PGRST122",
			want: `{"code":"PGRST122","message":"Invalid preferences given with handling=strict","details":"Invalid preferences: frobnicate=1","hint":null}`},
		{name: "anonymous deleting where only webuser may is 401 42501", method: "DELETE", path: "/categories",
			status: 401, code: "42501",
			want: `{"code":"42501","message":"permission denied for table categories","details":null,"hint":null}`},
		{name: "a view that is not updatable refuses the delete with 500 55000", method: "DELETE", path: "/category_counts",
			status: 500, code: "55000"},
		{name: "an unknown filter operator is 400 PGRST100", method: "DELETE", path: "/logs?msg=zz.boot",
			status: 400, code: "PGRST100"},
	})
}
