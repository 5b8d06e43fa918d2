package write

import "testing"

func TestUpsertWithPost(t *testing.T) {
	s := startServer(t)
	runWriteCases(t, s, "", []writeCase{
		{
			name:   "merge-duplicates updates the row of an existing key and inserts a new one: 201",
			method: "POST", path: "/items?select=id,name,price", headers: []string{"Prefer", "resolution=merge-duplicates, return=representation"},
			body:   `[{"id":1,"name":"hammer2","price":13},{"id":5,"name":"saw","price":1}]`,
			status: 201, contentRange: "*/*",
			applied: []string{"resolution=merge-duplicates", "return=representation"},
			want:    `[{"id":1,"name":"hammer2","price":13},{"id":5,"name":"saw","price":1}]`,
			table:   "select id, name, price, sku from api.items order by id",
			rows: `[{"id":1,"name":"hammer2","price":13,"sku":"H-1"},{"id":2,"name":"nail","price":0.1,"sku":"N-1"},
			        {"id":3,"name":"ball","price":3,"sku":"B-1"},{"id":4,"name":"kite","price":25,"sku":null},
			        {"id":5,"name":"saw","price":1,"sku":null}]`,
		},
		{
			name:   "merge-duplicates that only updates answers 200",
			method: "POST", path: "/items?select=id,name", headers: []string{"Prefer", "resolution=merge-duplicates, return=representation"},
			body:   `[{"id":1,"name":"hammer2"},{"id":2,"name":"nail2"}]`,
			status: 200, contentRange: "*/*",
			applied: []string{"resolution=merge-duplicates", "return=representation"},
			want:    `[{"id":1,"name":"hammer2"},{"id":2,"name":"nail2"}]`,
			table:   "select id, name from api.items order by id",
			rows:    `[{"id":1,"name":"hammer2"},{"id":2,"name":"nail2"},{"id":3,"name":"ball"},{"id":4,"name":"kite"}]`,
		},
		{
			name:   "merge-duplicates that only updates answers 200 with return=minimal too",
			method: "POST", path: "/items", headers: []string{"Prefer", "resolution=merge-duplicates"},
			body:   `{"id":3,"name":"ball2"}`,
			status: 200, contentRange: "*/*",
			applied: []string{"resolution=merge-duplicates"},
			table:   "select id, name from api.items where id = 3",
			rows:    `[{"id":3,"name":"ball2"}]`,
		},
		{
			name:   "merge-duplicates sets only the body's columns of an existing row",
			method: "POST", path: "/items", headers: []string{"Prefer", "resolution=merge-duplicates"},
			body:   `{"id":4,"name":"kite","price":30}`,
			status: 200, contentRange: "*/*",
			applied: []string{"resolution=merge-duplicates"},
			table:   "select id, name, price, note, code from api.items where id = 4",
			rows:    `[{"id":4,"name":"kite","price":30,"note":"windy","code":1003}]`,
		},
		{
			name:   "ignore-duplicates keeps existing rows and returns only the inserted ones",
			method: "POST", path: "/items?select=id,name", headers: []string{"Prefer", "resolution=ignore-duplicates, return=representation"},
			body:   `[{"id":1,"name":"changed"},{"id":5,"name":"saw"}]`,
			status: 201, contentRange: "*/*",
			applied: []string{"resolution=ignore-duplicates", "return=representation"},
			want:    `[{"id":5,"name":"saw"}]`,
			table:   "select id, name from api.items order by id",
			rows:    `[{"id":1,"name":"hammer"},{"id":2,"name":"nail"},{"id":3,"name":"ball"},{"id":4,"name":"kite"},{"id":5,"name":"saw"}]`,
		},
		{
			name:   "ignore-duplicates where every row exists changes nothing and answers 201",
			method: "POST", path: "/items?select=id", headers: []string{"Prefer", "resolution=ignore-duplicates, return=representation"},
			body:   `[{"id":1,"name":"changed"}]`,
			status: 201, contentRange: "*/*",
			applied: []string{"resolution=ignore-duplicates", "return=representation"},
			want:    `[]`,
			table:   "select id, name from api.items where id = 1",
			rows:    `[{"id":1,"name":"hammer"}]`,
		},
		{
			name:   "on_conflict upserts on a unique column and keeps the row's id",
			method: "POST", path: "/items?on_conflict=sku&select=id,name,sku", headers: []string{"Prefer", "resolution=merge-duplicates, return=representation"},
			body:   `[{"sku":"H-1","name":"mallet"},{"sku":"S-9","name":"saw"}]`,
			status: 201, contentRange: "*/*",
			applied: []string{"resolution=merge-duplicates", "return=representation"},
			// The conflicting row drew id 5 from the identity before it
			// conflicted: the new row gets 6, as in PostgreSQL.
			want:  `[{"id":1,"name":"mallet","sku":"H-1"},{"id":6,"name":"saw","sku":"S-9"}]`,
			table: "select id, name, sku from api.items order by id",
			rows: `[{"id":1,"name":"mallet","sku":"H-1"},{"id":2,"name":"nail","sku":"N-1"},{"id":3,"name":"ball","sku":"B-1"},
			        {"id":4,"name":"kite","sku":null},{"id":6,"name":"saw","sku":"S-9"}]`,
		},
		{
			name:   "a composite primary key is the default conflict target",
			method: "POST", path: "/order_lines?select=order_id,line,qty", headers: []string{"Prefer", "resolution=merge-duplicates, return=representation"},
			body:   `[{"order_id":1,"line":1,"item_id":1,"qty":5},{"order_id":1,"line":3,"item_id":4,"qty":1}]`,
			status: 201, contentRange: "*/*",
			applied: []string{"resolution=merge-duplicates", "return=representation"},
			want:    `[{"order_id":1,"line":1,"qty":5},{"order_id":1,"line":3,"qty":1}]`,
			table:   "select order_id, line, item_id, qty from api.order_lines order by order_id, line",
			rows: `[{"order_id":1,"line":1,"item_id":1,"qty":5},{"order_id":1,"line":2,"item_id":2,"qty":100},
			        {"order_id":1,"line":3,"item_id":4,"qty":1},{"order_id":2,"line":1,"item_id":3,"qty":1}]`,
		},
		{
			name:   "resolution on a table without a primary key or on_conflict is not applied: a plain insert",
			method: "POST", path: "/logs", headers: []string{"Prefer", "resolution=merge-duplicates"},
			body:   `{"msg":"boot"}`,
			status: 201, contentRange: "*/*",
			table: "select msg, level from api.logs order by msg",
			rows:  `[{"msg":"boot","level":1},{"msg":"boot","level":1}]`,
		},
	}, nil)
}

func TestUpsertErrorsLeaveNothingBehind(t *testing.T) {
	s := startServer(t)
	runErrorCases(t, s, []errorCase{
		{
			name:   "merge-duplicates whose update breaks the price check is 400 23514",
			method: "POST", path: "/items", body: `[{"id":5,"name":"saw","price":1},{"id":1,"name":"hammer","price":-5}]`,
			headers: []string{"Prefer", "resolution=merge-duplicates"},
			status:  400, code: "23514",
		},
		{
			name:   "merge-duplicates whose update takes another row's sku is 409 23505",
			method: "POST", path: "/items", body: `{"id":1,"name":"hammer","sku":"N-1"}`,
			headers: []string{"Prefer", "resolution=merge-duplicates"},
			status:  409, code: "23505",
			want: `{"code":"23505","message":"duplicate key value violates unique constraint \"items_sku_key\"",
			        "details":"Key (sku)=(N-1) already exists.","hint":null}`,
		},
		{
			name:   "on_conflict naming a column without a unique constraint is 400 42P10",
			method: "POST", path: "/items?on_conflict=name", body: `{"name":"hammer","price":1}`,
			headers: []string{"Prefer", "resolution=merge-duplicates"},
			status:  400, code: "42P10",
			want: `{"code":"42P10","message":"there is no unique or exclusion constraint matching the ON CONFLICT specification","details":null,"hint":null}`,
		},
		{
			name:   "on_conflict naming no column is the database's 400 42703",
			method: "POST", path: "/items?on_conflict=colour", body: `{"name":"hammer"}`,
			headers: []string{"Prefer", "resolution=merge-duplicates"},
			status:  400, code: "42703",
			want: `{"code":"42703","message":"column \"colour\" does not exist","details":null,"hint":null}`,
		},
		{
			// PostgREST answers 21000 (cardinality violation) with 500.
			name:   "the same key twice in one merge body is 500 21000",
			method: "POST", path: "/items", body: `[{"id":1,"name":"a"},{"id":1,"name":"b"}]`,
			headers: []string{"Prefer", "resolution=merge-duplicates"},
			status:  500, code: "21000",
			want: `{"code":"21000","message":"ON CONFLICT DO UPDATE command cannot affect row a second time","details":null,
			        "hint":"Ensure that no rows proposed for insertion within the same command have duplicate constrained values."}`,
		},
	})
}

func TestPut(t *testing.T) {
	s := startServer(t)
	runWriteCases(t, s, "", []writeCase{
		{
			name:   "PUT of a new key inserts the row and answers 204",
			method: "PUT", path: "/items?id=eq.5", body: `{"id":5,"name":"saw","price":2,"sku":"S-1","note":"new","category_id":1}`,
			status: 204,
			table:  itemCols + " where id = 5",
			rows:   `[{"id":5,"name":"saw","price":2,"sku":"S-1","code":1004,"note":"new","category_id":1}]`,
		},
		{
			name:   "PUT of a new key with return=representation answers 201 with the row",
			method: "PUT", path: "/items?id=eq.5&select=id,name,category:categories(name)", body: `{"id":5,"name":"saw","price":2,"sku":"S-1","note":"new","category_id":1}`,
			headers: []string{"Prefer", "return=representation"}, status: 201, applied: []string{"return=representation"},
			want:  `[{"id":5,"name":"saw","category":{"name":"tools"}}]`,
			table: itemCols + " where id = 5",
			rows:  `[{"id":5,"name":"saw","price":2,"sku":"S-1","code":1004,"note":"new","category_id":1}]`,
		},
		{
			name:   "PUT of an existing key replaces the row and answers 204",
			method: "PUT", path: "/items?id=eq.1", body: `{"id":1,"name":"mallet","price":9,"sku":"M-1","note":"new","category_id":2}`,
			status: 204,
			table:  itemCols + " order by id",
			rows: `[{"id":1,"name":"mallet","price":9,"sku":"M-1","code":1000,"note":"new","category_id":2},
			        {"id":2,"name":"nail","price":0.1,"sku":"N-1","code":1001,"note":"none","category_id":1},
			        {"id":3,"name":"ball","price":3,"sku":"B-1","code":1002,"note":"none","category_id":2},
			        {"id":4,"name":"kite","price":25,"sku":null,"code":1003,"note":"windy","category_id":2}]`,
		},
		{
			name:   "PUT of an existing key with return=representation answers 200",
			method: "PUT", path: "/items?id=eq.1&select=id,name,price", body: `{"id":1,"name":"mallet","price":9,"sku":"M-1","note":"new","category_id":2}`,
			headers: []string{"Prefer", "return=representation"}, status: 200, applied: []string{"return=representation"},
			want:  `[{"id":1,"name":"mallet","price":9}]`,
			table: itemCols + " where id = 1",
			rows:  `[{"id":1,"name":"mallet","price":9,"sku":"M-1","code":1000,"note":"new","category_id":2}]`,
		},
		{
			name:   "PUT with the singular media type returns an object",
			method: "PUT", path: "/items?id=eq.1&select=id,name", body: `{"id":1,"name":"mallet"}`,
			headers: []string{"Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json"},
			status:  200, applied: []string{"return=representation"},
			want:  `{"id":1,"name":"mallet"}`,
			table: "select id, name from api.items where id = 1",
			rows:  `[{"id":1,"name":"mallet"}]`,
		},
		{
			name:   "max-affected does not apply to PUT, even with handling=strict",
			method: "PUT", path: "/items?id=eq.1", body: `{"id":1,"name":"mallet"}`, headers: []string{"Prefer", "handling=strict, max-affected=0"},
			status: 204, applied: []string{"handling=strict"},
			table: "select id, name from api.items where id = 1", rows: `[{"id":1,"name":"mallet"}]`,
		},
		{
			name:   "PUT on a composite primary key filters every key column",
			method: "PUT", path: "/order_lines?order_id=eq.1&line=eq.2", body: `{"order_id":1,"line":2,"item_id":3,"qty":7}`,
			status: 204,
			table:  "select * from api.order_lines order by order_id, line",
			rows: `[{"order_id":1,"line":1,"item_id":1,"qty":2},{"order_id":1,"line":2,"item_id":3,"qty":7},
			        {"order_id":2,"line":1,"item_id":3,"qty":1}]`,
		},
		{
			name:   "PUT on a composite primary key takes the filters in any order",
			method: "PUT", path: "/order_lines?line=eq.4&order_id=eq.2", body: `{"order_id":2,"line":4,"item_id":4,"qty":1}`,
			status: 204,
			table:  "select * from api.order_lines where order_id = 2 order by line",
			rows:   `[{"order_id":2,"line":1,"item_id":3,"qty":1},{"order_id":2,"line":4,"item_id":4,"qty":1}]`,
		},
	}, nil)
}

func TestPutErrorsLeaveNothingBehind(t *testing.T) {
	s := startServer(t)
	pgrst105 := `{"code":"PGRST105","message":"Filters must include all and only primary key columns with 'eq' operators","details":null,"hint":null}`
	pgrst114 := `{"code":"PGRST114","message":"limit/offset querystring parameters are not allowed for PUT","details":null,"hint":null}`
	pgrst115 := `{"code":"PGRST115","message":"Payload values do not match URL in primary key column(s)","details":null,"hint":null}`
	runErrorCases(t, s, []errorCase{
		{name: "PUT without filters is 405 PGRST105", method: "PUT", path: "/items",
			body: `{"id":1,"name":"x"}`, status: 405, code: "PGRST105", want: pgrst105},
		{name: "PUT filtering the key with gt is 405 PGRST105", method: "PUT", path: "/items?id=gt.1",
			body: `{"id":1,"name":"x"}`, status: 405, code: "PGRST105", want: pgrst105},
		{name: "PUT filtering the key with not.eq is 405 PGRST105", method: "PUT", path: "/items?id=not.eq.1",
			body: `{"id":1,"name":"x"}`, status: 405, code: "PGRST105", want: pgrst105},
		{name: "PUT filtering a column beside the key is 405 PGRST105", method: "PUT", path: "/items?id=eq.1&name=eq.hammer",
			body: `{"id":1,"name":"x"}`, status: 405, code: "PGRST105", want: pgrst105},
		{name: "PUT filtering a column that is not the key is 405 PGRST105", method: "PUT", path: "/items?sku=eq.H-1",
			body: `{"sku":"H-1","name":"x"}`, status: 405, code: "PGRST105", want: pgrst105},
		{name: "PUT filtering part of a composite key is 405 PGRST105", method: "PUT", path: "/order_lines?order_id=eq.1",
			body: `{"order_id":1,"line":1,"item_id":1}`, status: 405, code: "PGRST105", want: pgrst105},
		{name: "PUT on a table without a primary key is 405 PGRST105", method: "PUT", path: "/logs?msg=eq.boot",
			body: `{"msg":"boot"}`, status: 405, code: "PGRST105", want: pgrst105},
		{name: "PUT with an or filter on the key is 405 PGRST105", method: "PUT", path: "/items?or=(id.eq.1)",
			body: `{"id":1,"name":"x"}`, status: 405, code: "PGRST105", want: pgrst105},
		{name: "PUT with limit is 400 PGRST114", method: "PUT", path: "/items?id=eq.1&limit=1",
			body: `{"id":1,"name":"x"}`, status: 400, code: "PGRST114", want: pgrst114},
		{name: "PUT with offset is 400 PGRST114", method: "PUT", path: "/items?id=eq.1&offset=1",
			body: `{"id":1,"name":"x"}`, status: 400, code: "PGRST114", want: pgrst114},
		{name: "PUT whose body key differs from the URL's is 400 PGRST115 and touches neither row", method: "PUT", path: "/items?id=eq.1",
			body: `{"id":2,"name":"x"}`, status: 400, code: "PGRST115", want: pgrst115},
		{name: "PUT of a new key whose body key differs from the URL's inserts nothing", method: "PUT", path: "/items?id=eq.7",
			body: `{"id":8,"name":"x"}`, status: 400, code: "PGRST115", want: pgrst115},
		{name: "PUT whose body lacks the key is 400 PGRST115", method: "PUT", path: "/items?id=eq.1",
			body: `{"name":"x"}`, status: 400, code: "PGRST115", want: pgrst115},
		{name: "PUT whose body differs in one column of a composite key is 400 PGRST115", method: "PUT", path: "/order_lines?order_id=eq.1&line=eq.1",
			body: `{"order_id":1,"line":2,"item_id":1}`, status: 400, code: "PGRST115", want: pgrst115},
		{name: "PUT breaking the price check is 400 23514", method: "PUT", path: "/items?id=eq.1",
			body: `{"id":1,"name":"hammer","price":-1}`, status: 400, code: "23514"},
		{name: "PUT taking another row's sku is 409 23505", method: "PUT", path: "/items?id=eq.1",
			body: `{"id":1,"name":"hammer","sku":"N-1"}`, status: 409, code: "23505"},
		{name: "PUT with an unknown category is 409 23503", method: "PUT", path: "/items?id=eq.5",
			body: `{"id":5,"name":"saw","category_id":9}`, status: 409, code: "23503"},
		{name: "PUT with a body key that is not a column is 400 PGRST204", method: "PUT", path: "/items?id=eq.1",
			body: `{"id":1,"name":"x","colour":"red"}`, status: 400, code: "PGRST204",
			want: `{"code":"PGRST204","message":"Could not find the 'colour' column of 'items' in the schema cache","details":null,"hint":null}`},
		{name: "PUT with malformed JSON is 400 PGRST102", method: "PUT", path: "/items?id=eq.1",
			body: `{"id":1,`, status: 400, code: "PGRST102"},
		{name: "PUT with a text/plain body is 415 PGRST107", method: "PUT", path: "/items?id=eq.1",
			body: `id=1`, headers: []string{"Content-Type", "text/plain"}, status: 415, code: "PGRST107"},
	})
}
