package write

import (
	"net/http"
	"testing"
)

func TestTxPreference(t *testing.T) {
	t.Run("with db_tx_end commit-allow-override", func(t *testing.T) {
		s := startServer(t, "db_tx_end commit-allow-override")
		runWriteCases(t, s, "", []writeCase{
			{
				name:   "tx=rollback on a POST answers 201 with the row but keeps nothing",
				method: "POST", path: "/items?select=id,name", body: `{"name":"saw"}`,
				headers: []string{"Prefer", "tx=rollback, return=representation"}, status: 201, contentRange: "*/*",
				want: `[{"id":5,"name":"saw"}]`, applied: []string{"tx=rollback", "return=representation"}, unchanged: true,
			},
			{
				name:   "tx=rollback on a bulk POST keeps none of the rows",
				method: "POST", path: "/items", body: `[{"name":"saw"},{"name":"file"}]`,
				headers: []string{"Prefer", "tx=rollback"}, status: 201, contentRange: "*/*", applied: []string{"tx=rollback"}, unchanged: true,
			},
			{
				name:   "tx=rollback on a PATCH keeps nothing",
				method: "PATCH", path: "/items?id=eq.1", body: `{"name":"mallet"}`,
				headers: []string{"Prefer", "tx=rollback"}, status: 204, contentRange: "0-0/*", applied: []string{"tx=rollback"}, unchanged: true,
			},
			{
				name:   "tx=rollback on a PUT keeps nothing",
				method: "PUT", path: "/items?id=eq.1", body: `{"id":1,"name":"mallet"}`,
				headers: []string{"Prefer", "tx=rollback"}, status: 204, applied: []string{"tx=rollback"}, unchanged: true,
			},
			{
				name:   "tx=rollback on a DELETE keeps every row",
				method: "DELETE", path: "/logs?select=msg", headers: []string{"Prefer", "tx=rollback, return=representation"},
				status: 200, contentRange: "*/*",
				want: `[{"msg":"boot"}]`, applied: []string{"tx=rollback", "return=representation"}, unchanged: true,
			},
		}, nil)
		t.Run("tx=commit keeps the row and says so", func(t *testing.T) {
			reset(t)
			res := s.do(t, http.MethodPost, "/items", `{"name":"saw"}`, "Prefer", "tx=commit")
			res.expectStatus(t, 201)
			res.expectApplied(t, "tx=commit")
			expectRows(t, "select id, name from api.items where id > 4", `[{"id":5,"name":"saw"}]`)
		})
		t.Run("without tx the configured commit keeps the row", func(t *testing.T) {
			reset(t)
			res := s.do(t, http.MethodPost, "/items", `{"name":"saw"}`)
			res.expectStatus(t, 201)
			res.expectApplied(t)
			expectRows(t, "select id, name from api.items where id > 4", `[{"id":5,"name":"saw"}]`)
		})
	})

	t.Run("with the default db_tx_end commit", func(t *testing.T) {
		s := startServer(t)
		t.Run("tx=rollback is not applied and the row is kept", func(t *testing.T) {
			reset(t)
			res := s.do(t, http.MethodPost, "/items", `{"name":"saw"}`, "Prefer", "tx=rollback")
			res.expectStatus(t, 201)
			res.expectApplied(t)
			expectRows(t, "select id, name from api.items where id > 4", `[{"id":5,"name":"saw"}]`)
		})
	})

	t.Run("with db_tx_end rollback", func(t *testing.T) {
		s := startServer(t, "db_tx_end rollback")
		t.Run("every write answers as usual and keeps nothing", func(t *testing.T) {
			reset(t)
			untouched(t, allTables, func() {
				res := s.do(t, http.MethodPost, "/items?select=id", `{"name":"saw"}`, "Prefer", "tx=commit, return=representation")
				res.expectStatus(t, 201)
				res.expectBody(t, `[{"id":5}]`)
				res.expectApplied(t, "return=representation")
				s.do(t, http.MethodDelete, "/logs", "").expectStatus(t, 204)
			})
		})
	})
}

// The same writes, with statements prepared on the connection and sent
// unnamed (db_prepared_statements false, as behind PgBouncer).
func TestWritesWithAndWithoutPreparedStatements(t *testing.T) {
	for _, prepared := range []string{"true", "false"} {
		t.Run("db_prepared_statements "+prepared, func(t *testing.T) {
			s := startServer(t, "db_prepared_statements "+prepared)
			// Twice, so that a prepared statement is also reused.
			for round := 1; round <= 2; round++ {
				reset(t)
				res := s.do(t, http.MethodPost, "/items?select=id,name", `{"name":"saw"}`, "Prefer", "return=representation")
				res.expectStatus(t, 201)
				res.expectBody(t, `[{"id":5,"name":"saw"}]`)

				s.do(t, http.MethodPost, "/items", `[{"name":"a","sku":"A"},{"name":"b","sku":"B"}]`).expectStatus(t, 201)

				res = s.do(t, http.MethodPatch, "/items?id=eq.5", `{"price":4}`, "Prefer", "count=exact")
				res.expectStatus(t, 204)
				res.expectHeader(t, "Content-Range", "0-0/1")

				s.do(t, http.MethodPut, "/items?id=eq.9", `{"id":9,"name":"put"}`).expectStatus(t, 204)

				res = s.do(t, http.MethodPost, "/items", `{"id":1,"name":"hammer","price":1}`, "Prefer", "resolution=merge-duplicates")
				res.expectStatus(t, 200)

				res = s.do(t, http.MethodDelete, "/items?name=eq.a&select=sku", "", "Prefer", "return=representation")
				res.expectStatus(t, 200)
				res.expectBody(t, `[{"sku":"A"}]`)

				untouched(t, allTables, func() {
					s.do(t, http.MethodPost, "/items", `{"name":"dup","sku":"B"}`).expectError(t, 409, "23505")
					s.do(t, http.MethodPatch, "/items?price=lt.5", `{"note":"x"}`, "Prefer", "handling=strict, max-affected=1").
						expectError(t, 400, "PGRST124")
				})

				expectRows(t, "select id, name, price from api.items order by id", `[
					{"id":1,"name":"hammer","price":1},{"id":2,"name":"nail","price":0.1},{"id":3,"name":"ball","price":3},
					{"id":4,"name":"kite","price":25},{"id":5,"name":"saw","price":4},{"id":7,"name":"b","price":0},
					{"id":9,"name":"put","price":0}]`)
			}
		})
	}
}

func TestWritesFromAReadOnlyTransaction(t *testing.T) {
	s := startServer(t)
	runErrorCases(t, s, []errorCase{
		{name: "a volatile function called with GET runs read-only and is 405 25006", method: "GET", path: "/rpc/bump_price?item_id=1",
			status: 405, code: "25006",
			want: `{"code":"25006","message":"cannot execute UPDATE in a read-only transaction","details":null,"hint":null}`},
		{name: "the same function called with HEAD is 405 25006 too", method: "HEAD", path: "/rpc/bump_price?item_id=1",
			status: 405, code: "25006"},
	})
	t.Run("the same function called with POST writes", func(t *testing.T) {
		reset(t)
		res := s.do(t, http.MethodPost, "/rpc/bump_price", `{"item_id":1}`)
		res.expectStatus(t, 204)
		expectRows(t, "select price from api.items where id = 1", `[{"price":13.5}]`)
	})
}
