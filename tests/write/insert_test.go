package write

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// itemCols are the items columns a test compares; created_at is left out
// where it comes from now().
const itemCols = "select id, name, price, sku, code, note, category_id from api.items"

// newItems lists the items inserted after the seed rows.
const newItems = itemCols + " where id > 4 order by id"

// seedKept checks that an insert left the seed rows of items and the
// categories as they were.
func seedKept(t *testing.T) {
	t.Helper()
	expectRows(t, itemCols+" where id <= 4 order by id", seedItems)
	expectRows(t, "select * from api.categories order by id", `[{"id":1,"name":"tools"},{"id":2,"name":"toys"}]`)
}

func TestInsertReturnsWhatThePreferenceAsks(t *testing.T) {
	s := startServer(t)
	runWriteCases(t, s, "", []writeCase{
		{
			name:   "a single object without Prefer answers 201 with no body, like return=minimal",
			method: "POST", path: "/items", body: `{"name":"saw","price":7.5}`,
			status: 201, contentRange: "*/*",
			table: newItems, rows: `[{"id":5,"name":"saw","price":7.5,"sku":null,"code":1004,"note":"none","category_id":null}]`,
		},
		{
			name:   "return=minimal answers 201 with no body and says it applied",
			method: "POST", path: "/items", body: `{"name":"saw"}`, headers: []string{"Prefer", "return=minimal"},
			status: 201, contentRange: "*/*", applied: []string{"return=minimal"},
			table: newItems, rows: `[{"id":5,"name":"saw","price":0,"sku":null,"code":1004,"note":"none","category_id":null}]`,
		},
		{
			name:   "return=headers-only gives the Location of the new row by its primary key",
			method: "POST", path: "/items", body: `{"name":"saw"}`, headers: []string{"Prefer", "return=headers-only"},
			status: 201, contentRange: "*/*", location: "/items?id=eq.5", applied: []string{"return=headers-only"},
			table: newItems, rows: `[{"id":5,"name":"saw","price":0,"sku":null,"code":1004,"note":"none","category_id":null}]`,
		},
		{
			name:   "return=headers-only gives no Location when several rows are inserted",
			method: "POST", path: "/items", body: `[{"name":"saw"},{"name":"file"}]`, headers: []string{"Prefer", "return=headers-only"},
			status: 201, contentRange: "*/*", applied: []string{"return=headers-only"},
			table: newItems, rows: `[{"id":5,"name":"saw","price":0,"sku":null,"code":1004,"note":"none","category_id":null},
			                       {"id":6,"name":"file","price":0,"sku":null,"code":1005,"note":"none","category_id":null}]`,
		},
		{
			name:   "return=representation answers 201 with the inserted rows shaped by select",
			method: "POST", path: "/items?select=id,name,code,note", body: `{"name":"saw","price":7.5}`,
			headers: []string{"Prefer", "return=representation"},
			status:  201, contentRange: "*/*", applied: []string{"return=representation"},
			want:  `[{"id":5,"name":"saw","code":1004,"note":"none"}]`,
			table: newItems, rows: `[{"id":5,"name":"saw","price":7.5,"sku":null,"code":1004,"note":"none","category_id":null}]`,
		},
		{
			name:   "return=representation embeds the related category of the new row",
			method: "POST", path: "/items?select=id,name,category:categories(id,name)", body: `{"name":"saw","category_id":2}`,
			headers: []string{"Prefer", "return=representation"},
			status:  201, contentRange: "*/*", applied: []string{"return=representation"},
			want:  `[{"id":5,"name":"saw","category":{"id":2,"name":"toys"}}]`,
			table: newItems, rows: `[{"id":5,"name":"saw","price":0,"sku":null,"code":1004,"note":"none","category_id":2}]`,
		},
		{
			name:   "return=representation of a bulk insert lists the rows in body order",
			method: "POST", path: "/items?select=id,name,price", body: `[{"name":"saw","price":1},{"name":"file","price":2},{"name":"vise","price":3}]`,
			headers: []string{"Prefer", "return=representation"},
			status:  201, contentRange: "*/*", applied: []string{"return=representation"},
			want:  `[{"id":5,"name":"saw","price":1},{"id":6,"name":"file","price":2},{"id":7,"name":"vise","price":3}]`,
			table: newItems, rows: `[{"id":5,"name":"saw","price":1,"sku":null,"code":1004,"note":"none","category_id":null},
			                       {"id":6,"name":"file","price":2,"sku":null,"code":1005,"note":"none","category_id":null},
			                       {"id":7,"name":"vise","price":3,"sku":null,"code":1006,"note":"none","category_id":null}]`,
		},
		{
			name:   "the singular media type returns the one inserted row as an object",
			method: "POST", path: "/items?select=id,name", body: `{"name":"saw"}`,
			headers: []string{"Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json"},
			status:  201, contentRange: "*/*", applied: []string{"return=representation"},
			want:  `{"id":5,"name":"saw"}`,
			table: newItems, rows: `[{"id":5,"name":"saw","price":0,"sku":null,"code":1004,"note":"none","category_id":null}]`,
		},
		{
			name:   "count=exact puts the number of inserted rows in Content-Range",
			method: "POST", path: "/items", body: `[{"name":"saw"},{"name":"file"}]`, headers: []string{"Prefer", "count=exact"},
			status: 201, contentRange: "*/2", applied: []string{"count=exact"},
			table: newItems, rows: `[{"id":5,"name":"saw","price":0,"sku":null,"code":1004,"note":"none","category_id":null},
			                       {"id":6,"name":"file","price":0,"sku":null,"code":1005,"note":"none","category_id":null}]`,
		},
		{
			name:   "an explicit id is kept and an explicit null stays null",
			method: "POST", path: "/items?select=id,sku,note", body: `{"id":40,"name":"saw","sku":null,"note":null}`,
			headers: []string{"Prefer", "return=representation"},
			status:  201, contentRange: "*/*", applied: []string{"return=representation"},
			want:  `[{"id":40,"sku":null,"note":null}]`,
			table: newItems, rows: `[{"id":40,"name":"saw","price":0,"sku":null,"code":1004,"note":null,"category_id":null}]`,
		},
		{
			name:   "max-affected does not apply to an insert, even with handling=strict",
			method: "POST", path: "/items", body: `[{"name":"saw"},{"name":"file"}]`, headers: []string{"Prefer", "handling=strict, max-affected=1"},
			status: 201, contentRange: "*/*", applied: []string{"handling=strict"},
			table: newItems, rows: `[{"id":5,"name":"saw","price":0,"sku":null,"code":1004,"note":"none","category_id":null},
			                       {"id":6,"name":"file","price":0,"sku":null,"code":1005,"note":"none","category_id":null}]`,
		},
		{
			name:   "handling=lenient ignores an unknown preference and says it applied",
			method: "POST", path: "/items", body: `{"name":"saw"}`, headers: []string{"Prefer", "handling=lenient, frobnicate, return=nothing"},
			status: 201, contentRange: "*/*", applied: []string{"handling=lenient"},
			table: newItems, rows: `[{"id":5,"name":"saw","price":0,"sku":null,"code":1004,"note":"none","category_id":null}]`,
		},
		{
			name:   "an empty array inserts nothing and answers 201",
			method: "POST", path: "/items", body: `[]`, headers: []string{"Prefer", "return=representation"},
			status: 201, contentRange: "*/*", applied: []string{"return=representation"},
			want:  `[]`,
			table: newItems, rows: `[]`,
		},
	}, seedKept)
}

// seedItems are the seed rows of items, as itemCols shows them.
const seedItems = `[
	{"id":1,"name":"hammer","price":12.5,"sku":"H-1","code":1000,"note":"none","category_id":1},
	{"id":2,"name":"nail","price":0.1,"sku":"N-1","code":1001,"note":"none","category_id":1},
	{"id":3,"name":"ball","price":3,"sku":"B-1","code":1002,"note":"none","category_id":2},
	{"id":4,"name":"kite","price":25,"sku":null,"code":1003,"note":"windy","category_id":2}]`

func TestInsertHeadersOnlyLocation(t *testing.T) {
	s := startServer(t)
	headersOnly := append(asUser(t), "Prefer", "return=headers-only")
	runWriteCases(t, s, "", []writeCase{
		{
			name:   "a composite primary key gives every key column in order",
			method: "POST", path: "/order_lines", body: `{"line":7,"order_id":3,"item_id":1}`, headers: headersOnly,
			status: 201, contentRange: "*/*", location: "/order_lines?order_id=eq.3&line=eq.7", applied: []string{"return=headers-only"},
			table: "select * from api.order_lines where order_id = 3", rows: `[{"order_id":3,"line":7,"item_id":1,"qty":1}]`,
		},
		{
			name:   "a table without a primary key gives no Location",
			method: "POST", path: "/logs", body: `{"msg":"hello"}`, headers: headersOnly,
			status: 201, contentRange: "*/*", applied: []string{"return=headers-only"},
			table: "select msg from api.logs order by msg", rows: `[{"msg":"boot"},{"msg":"hello"}]`,
		},
		{
			name:   "a text key is escaped in the query string",
			method: "POST", path: "/categories", body: `{"name":"a b&c"}`, headers: headersOnly,
			status: 201, contentRange: "*/*", location: "/categories?id=eq.3", applied: []string{"return=headers-only"},
			table: "select * from api.categories where id = 3", rows: `[{"id":3,"name":"a b&c"}]`,
		},
	}, nil)
}

func TestInsertBodies(t *testing.T) {
	s := startServer(t)
	runWriteCases(t, s, "", []writeCase{
		{
			name:   "a form body inserts one row, its values cast from text",
			method: "POST", path: "/items", headers: []string{"Content-Type", "application/x-www-form-urlencoded"},
			body:   "name=rake+small&price=4.25&sku=R%2F1",
			status: 201, contentRange: "*/*",
			table: newItems, rows: `[{"id":5,"name":"rake small","price":4.25,"sku":"R/1","code":1004,"note":"none","category_id":null}]`,
		},
		{
			name:   "a form body with a charset parameter is still a form body",
			method: "POST", path: "/items", headers: []string{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"},
			body:   "name=rake",
			status: 201, contentRange: "*/*",
			table: newItems, rows: `[{"id":5,"name":"rake","price":0,"sku":null,"code":1004,"note":"none","category_id":null}]`,
		},
		{
			name:   "a CSV body inserts a row per line after the header line",
			method: "POST", path: "/items", headers: []string{"Content-Type", "text/csv"},
			body:   "name,price,sku\nrake,4.25,R-1\nhoe,1,H-2\n",
			status: 201, contentRange: "*/*",
			table: newItems, rows: `[{"id":5,"name":"rake","price":4.25,"sku":"R-1","code":1004,"note":"none","category_id":null},
			                       {"id":6,"name":"hoe","price":1,"sku":"H-2","code":1005,"note":"none","category_id":null}]`,
		},
		{
			name:   "in CSV an unquoted NULL is null and an empty field is an empty string",
			method: "POST", path: "/items", headers: []string{"Content-Type", "text/csv"},
			body:   "name,sku,note\nrake,NULL,\n",
			status: 201, contentRange: "*/*",
			table: newItems, rows: `[{"id":5,"name":"rake","price":0,"sku":null,"code":1004,"note":"","category_id":null}]`,
		},
		{
			name:   "in CSV quoted fields keep their commas and quotes",
			method: "POST", path: "/items", headers: []string{"Content-Type", "text/csv"},
			body:   "name,note\n\"rake, \"\"big\"\"\",x\n",
			status: 201, contentRange: "*/*",
			table: newItems, rows: `[{"id":5,"name":"rake, \"big\"","price":0,"sku":null,"code":1004,"note":"x","category_id":null}]`,
		},
		{
			name:   "a JSON body with a charset parameter is JSON",
			method: "POST", path: "/items", headers: []string{"Content-Type", "application/json; charset=utf-8"},
			body:   `{"name":"rake"}`,
			status: 201, contentRange: "*/*",
			table: newItems, rows: `[{"id":5,"name":"rake","price":0,"sku":null,"code":1004,"note":"none","category_id":null}]`,
		},
	}, seedKept)
}

func TestInsertColumnsAndMissing(t *testing.T) {
	s := startServer(t)
	runWriteCases(t, s, "", []writeCase{
		{
			name:   "columns= takes only the listed keys and ignores the rest, even keys that are not columns",
			method: "POST", path: "/items?columns=name,price&select=id,name,price,sku,note", headers: []string{"Prefer", "return=representation"},
			body:   `{"name":"saw","price":2,"sku":"S-1","note":"ignored","bogus":1}`,
			status: 201, contentRange: "*/*", applied: []string{"return=representation"},
			want: `[{"id":5,"name":"saw","price":2,"sku":null,"note":"none"}]`,
		},
		{
			name:   "columns= lets bulk objects have different keys; an absent key is null without missing=default",
			method: "POST", path: "/items?columns=name,note&select=id,name,note", headers: []string{"Prefer", "return=representation"},
			body:   `[{"name":"saw"},{"name":"file","note":"flat"}]`,
			status: 201, contentRange: "*/*", applied: []string{"return=representation"},
			want: `[{"id":5,"name":"saw","note":null},{"id":6,"name":"file","note":"flat"}]`,
		},
		{
			name:   "missing=default fills absent keys with the column default and keeps an explicit null",
			method: "POST", path: "/items?columns=name,price,note,code&select=id,name,price,note,code", headers: []string{"Prefer", "missing=default, return=representation"},
			body:   `[{"name":"saw"},{"name":"file","price":3,"note":null,"code":7}]`,
			status: 201, contentRange: "*/*", applied: []string{"missing=default", "return=representation"},
			want: `[{"id":5,"name":"saw","price":0,"note":"none","code":1004},{"id":6,"name":"file","price":3,"note":null,"code":7}]`,
		},
		{
			name:   "missing=default on a single object fills its absent keys",
			method: "POST", path: "/items?columns=name,note&select=id,name,note", headers: []string{"Prefer", "missing=default, return=representation"},
			body:   `{"name":"saw"}`,
			status: 201, contentRange: "*/*", applied: []string{"missing=default", "return=representation"},
			want: `[{"id":5,"name":"saw","note":"none"}]`,
		},
		{
			name:   "missing=null is the default behaviour: absent keys are null",
			method: "POST", path: "/items?columns=name,note&select=id,name,note", headers: []string{"Prefer", "missing=null, return=representation"},
			body:   `{"name":"saw"}`,
			status: 201, contentRange: "*/*", applied: []string{"missing=null", "return=representation"},
			want: `[{"id":5,"name":"saw","note":null}]`,
		},
	}, seedKept)

	t.Run("missing=default fills an absent timestamp with now()", func(t *testing.T) {
		reset(t)
		start := time.Now().Add(-time.Minute)
		res := s.do(t, http.MethodPost, "/items?columns=name,created_at&select=created_at", `{"name":"saw"}`,
			"Prefer", "missing=default, return=representation")
		res.expectStatus(t, 201)
		rows := decodeRows(t, res.Body)
		if len(rows) != 1 {
			t.Fatalf("body %s", res.Body)
		}
		ts, err := time.Parse(time.RFC3339Nano, rows[0]["created_at"].(string))
		if err != nil {
			t.Fatalf("created_at %v: %v", rows[0]["created_at"], err)
		}
		if ts.Before(start) || ts.After(time.Now().Add(time.Minute)) {
			t.Errorf("created_at %v is not now", ts)
		}
	})
}

func TestInsertBulk(t *testing.T) {
	s := startServer(t)
	const n = 1000
	body := func(bad int, badRow string) string {
		var b strings.Builder
		b.WriteByte('[')
		for i := 1; i <= n; i++ {
			if i > 1 {
				b.WriteByte(',')
			}
			if i == bad {
				b.WriteString(badRow)
				continue
			}
			fmt.Fprintf(&b, `{"name":"bulk-%d","price":%d.5,"sku":"BULK-%d"}`, i, i%100, i)
		}
		b.WriteByte(']')
		return b.String()
	}

	t.Run("1,000 rows in one request are inserted by one statement", func(t *testing.T) {
		reset(t)
		res := s.do(t, http.MethodPost, "/items", body(0, ""), "Prefer", "count=exact")
		res.expectStatus(t, 201)
		res.expectNoBody(t)
		res.expectHeader(t, "Content-Range", "*/1000")
		res.expectApplied(t, "count=exact")
		if got := insertStatements(t); got != 1 {
			t.Errorf("%d INSERT statements ran on items, want 1", got)
		}
		expectRows(t, "select count(*) as n, min(id) as lo, max(id) as hi, count(distinct code) as codes from api.items where id > 4",
			`[{"n":1000,"lo":5,"hi":1004,"codes":1000}]`)
		// Rows keep the body's order: row i got id i+4.
		expectRows(t, "select count(*) as n from api.items where id > 4 and (name <> 'bulk-' || (id - 4) or sku <> 'BULK-' || (id - 4))",
			`[{"n":0}]`)
		expectRows(t, itemCols+" where id <= 4 order by id", seedItems)
	})

	t.Run("1,000 rows come back in body order with return=representation", func(t *testing.T) {
		reset(t)
		res := s.do(t, http.MethodPost, "/items?select=id,name", body(0, ""), "Prefer", "return=representation")
		res.expectStatus(t, 201)
		rows := decodeRows(t, res.Body)
		if len(rows) != n {
			t.Fatalf("%d rows returned, want %d", len(rows), n)
		}
		for i, r := range rows {
			if r["id"] != float64(i+5) || r["name"] != fmt.Sprintf("bulk-%d", i+1) {
				t.Fatalf("row %d is %v", i, r)
			}
		}
	})

	errs := []struct {
		name   string
		bad    string
		status int
		code   string
		want   string
	}{
		{
			name: "row 500 of 1,000 repeating a unique sku inserts nothing",
			bad:  `{"name":"bulk-500","price":1,"sku":"H-1"}`, status: 409, code: "23505",
			want: `{"code":"23505","message":"duplicate key value violates unique constraint \"items_sku_key\"",
			        "details":"Key (sku)=(H-1) already exists.","hint":null}`,
		},
		{
			name: "row 500 of 1,000 failing the price check inserts nothing",
			bad:  `{"name":"bulk-500","price":-1,"sku":"BULK-500"}`, status: 400, code: "23514",
		},
		{
			name: "row 500 of 1,000 with a null name inserts nothing",
			bad:  `{"name":null,"price":1,"sku":"BULK-500"}`, status: 400, code: "23502",
		},
		{
			name: "row 500 of 1,000 with other keys is refused before anything runs",
			bad:  `{"name":"bulk-500","price":1}`, status: 400, code: "PGRST102",
			want: `{"code":"PGRST102","message":"All object keys must match","details":null,"hint":null}`,
		},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) {
			reset(t)
			untouched(t, allTables, func() {
				res := s.do(t, http.MethodPost, "/items", body(500, c.bad))
				res.expectError(t, c.status, c.code)
				if c.want != "" {
					res.expectBody(t, c.want)
				}
			})
		})
	}
}

func TestInsertErrorsLeaveNothingBehind(t *testing.T) {
	s := startServer(t)
	runErrorCases(t, s, []errorCase{
		{
			name:   "a null in a NOT NULL column is 400 23502 with the failing row",
			method: "POST", path: "/items", body: `{"name":null,"created_at":"2024-02-01T00:00:00Z"}`,
			status: 400, code: "23502",
			want: `{"code":"23502","message":"null value in column \"name\" of relation \"items\" violates not-null constraint",
			        "details":"Failing row contains (5, null, 0.00, null, 1004, none, null, 2024-02-01 00:00:00+00).","hint":null}`,
		},
		{
			name:   "an empty object inserts defaults, which fail NOT NULL name",
			method: "POST", path: "/items", body: `{}`,
			status: 400, code: "23502",
		},
		{
			name:   "a negative price is 400 23514 naming the check constraint",
			method: "POST", path: "/items", body: `{"name":"saw","price":-1,"created_at":"2024-02-01T00:00:00Z"}`,
			status: 400, code: "23514",
			want: `{"code":"23514","message":"new row for relation \"items\" violates check constraint \"items_price_check\"",
			        "details":"Failing row contains (5, saw, -1.00, null, 1004, none, null, 2024-02-01 00:00:00+00).","hint":null}`,
		},
		{
			name:   "an unknown category is 409 23503",
			method: "POST", path: "/items", body: `{"name":"saw","category_id":99}`,
			status: 409, code: "23503",
			want: `{"code":"23503","message":"insert or update on table \"items\" violates foreign key constraint \"items_category_id_fkey\"",
			        "details":"Key (category_id)=(99) is not present in table \"categories\".","hint":null}`,
		},
		{
			name:   "a repeated sku is 409 23505",
			method: "POST", path: "/items", body: `{"name":"saw","sku":"B-1"}`,
			status: 409, code: "23505",
			want: `{"code":"23505","message":"duplicate key value violates unique constraint \"items_sku_key\"",
			        "details":"Key (sku)=(B-1) already exists.","hint":null}`,
		},
		{
			name:   "a repeated primary key is 409 23505",
			method: "POST", path: "/items", body: `{"id":1,"name":"saw"}`,
			status: 409, code: "23505",
			want: `{"code":"23505","message":"duplicate key value violates unique constraint \"items_pkey\"",
			        "details":"Key (id)=(1) already exists.","hint":null}`,
		},
		{
			name:   "two rows of one body repeating a sku between them is 409 23505",
			method: "POST", path: "/items", body: `[{"name":"a","sku":"X"},{"name":"b","sku":"X"}]`,
			status: 409, code: "23505",
		},
		{
			name:   "a value of the wrong type is 400 22P02",
			method: "POST", path: "/items", body: `{"name":"saw","price":"cheap"}`,
			status: 400, code: "22P02",
			want: `{"code":"22P02","message":"invalid input syntax for type numeric: \"cheap\"","details":null,"hint":null}`,
		},
		{
			name:   "a composite key line with qty 0 is 400 23514",
			method: "POST", path: "/order_lines", body: `{"order_id":3,"line":1,"item_id":1,"qty":0}`,
			status: 400, code: "23514",
		},
		{
			name:   "bulk objects with different keys are 400 PGRST102",
			method: "POST", path: "/items", body: `[{"name":"a","price":1},{"name":"b"}]`,
			status: 400, code: "PGRST102",
			want: `{"code":"PGRST102","message":"All object keys must match","details":null,"hint":null}`,
		},
		{
			name:   "bulk objects with the same number of different keys are 400 PGRST102",
			method: "POST", path: "/items", body: `[{"name":"a","price":1},{"name":"b","sku":"x"}]`,
			status: 400, code: "PGRST102",
			want: `{"code":"PGRST102","message":"All object keys must match","details":null,"hint":null}`,
		},
		{
			name:   "an array of scalars is 400 PGRST102",
			method: "POST", path: "/items", body: `[1,2]`,
			status: 400, code: "PGRST102",
			want: `{"code":"PGRST102","message":"All object keys must match","details":null,"hint":null}`,
		},
		{
			name:   "an empty body is 400 PGRST102",
			method: "POST", path: "/items", body: "", headers: []string{"Content-Type", "application/json"},
			status: 400, code: "PGRST102",
			want: `{"code":"PGRST102","message":"Empty or invalid json","details":null,"hint":null}`,
		},
		{
			name:   "malformed JSON is 400 PGRST102",
			method: "POST", path: "/items", body: `{"name":`,
			status: 400, code: "PGRST102",
			want: `{"code":"PGRST102","message":"Empty or invalid json","details":null,"hint":null}`,
		},
		{
			name:   "a body key that is not a column is 400 PGRST204",
			method: "POST", path: "/items", body: `{"name":"saw","colour":"red"}`,
			status: 400, code: "PGRST204",
			want: `{"code":"PGRST204","message":"Could not find the 'colour' column of 'items' in the schema cache","details":null,"hint":null}`,
		},
		{
			name:   "a columns= entry that is not a column is 400 PGRST204",
			method: "POST", path: "/items?columns=name,colour", body: `{"name":"saw"}`,
			status: 400, code: "PGRST204",
			want: `{"code":"PGRST204","message":"Could not find the 'colour' column of 'items' in the schema cache","details":null,"hint":null}`,
		},
		{
			name:   "a text/plain body is 415 PGRST107",
			method: "POST", path: "/items", body: `name=saw`, headers: []string{"Content-Type", "text/plain"},
			status: 415, code: "PGRST107",
		},
		{
			name:   "an XML body is 415 PGRST107",
			method: "POST", path: "/items", body: `<item/>`, headers: []string{"Content-Type", "application/xml"},
			status: 415, code: "PGRST107",
		},
		{
			name:   "the singular media type over a two-row insert is 406 PGRST116 and rolls back",
			method: "POST", path: "/items", body: `[{"name":"a"},{"name":"b"}]`,
			headers: []string{"Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json"},
			status:  406, code: "PGRST116",
			want: `{"code":"PGRST116","message":"Cannot coerce the result to a single JSON object","details":"The result contains 2 rows","hint":null}`,
		},
		{
			name:   "the singular media type over an empty insert is 406 PGRST116",
			method: "POST", path: "/items", body: `[]`,
			headers: []string{"Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json"},
			status:  406, code: "PGRST116",
			want: `{"code":"PGRST116","message":"Cannot coerce the result to a single JSON object","details":"The result contains 0 rows","hint":null}`,
		},
		{
			name:   "handling=strict with an unknown preference is 400 PGRST122",
			method: "POST", path: "/items", body: `{"name":"saw"}`, headers: []string{"Prefer", "handling=strict, frobnicate"},
			status: 400, code: "PGRST122",
			want: `{"code":"PGRST122","message":"Invalid preferences given with handling=strict","details":"Invalid preferences: frobnicate","hint":null}`,
		},
		{
			name:   "handling=strict with a bad max-affected is 400 PGRST122",
			method: "POST", path: "/items", body: `{"name":"saw"}`, headers: []string{"Prefer", "handling=strict, max-affected=many"},
			status: 400, code: "PGRST122",
			want: `{"code":"PGRST122","message":"Invalid preferences given with handling=strict","details":"Invalid preferences: max-affected=many","hint":null}`,
		},
		{
			name:   "an unknown table is 404 PGRST205",
			method: "POST", path: "/itemz", body: `{"name":"saw"}`,
			status: 404, code: "PGRST205",
		},
		{
			name:   "a view that is not updatable refuses the insert with the database's 500 55000",
			method: "POST", path: "/category_counts", body: `{"category_id":1}`,
			status: 500, code: "55000",
			want: `{"code":"55000","message":"cannot insert into view \"category_counts\"",
			        "details":"Views containing GROUP BY are not automatically updatable.",
			        "hint":"To enable inserting into the view, provide an INSTEAD OF INSERT trigger or an unconditional ON INSERT DO INSTEAD rule."}`,
		},
		{
			name:   "anonymous inserting where only webuser may is 401 42501",
			method: "POST", path: "/categories", body: `{"name":"garden"}`,
			status: 401, code: "42501",
			want: `{"code":"42501","message":"permission denied for table categories","details":null,"hint":null}`,
		},
	})
}
