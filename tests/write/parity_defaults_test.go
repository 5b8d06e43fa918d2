package write

import (
	"testing"
)

// TestMissingDefault: with Prefer: missing=default a key a row lacks
// takes what PostgreSQL would fill it with: the column default, an
// identity's next value, the default of the column's domain (InsertSpec
// "apply defaults on missing values"), on POST and, with columns=, on
// PATCH too.
func TestMissingDefault(t *testing.T) {
	s := startServer(t)
	prefer := []string{"Prefer", "return=representation, missing=default"}
	applied := []string{"return=representation", "missing=default"}
	gadgets := "select id, name, colour, qty, note from api.gadgets order by id"
	runWriteCases(t, s, "select private.reset_parity()", []writeCase{
		{
			name:   "an identity takes its next value and a domain its default",
			method: "POST", path: "/gadgets?columns=id,name,colour,qty,note",
			body:    `[{"name":"fan"},{"id":50,"name":"clock","colour":"red","qty":3,"note":"n"}]`,
			headers: prefer, status: 201, contentRange: "*/*", applied: applied,
			want:  `[{"id":2,"name":"fan","colour":"grey","qty":1,"note":null},{"id":50,"name":"clock","colour":"red","qty":3,"note":"n"}]`,
			table: gadgets,
			rows: `[{"id":1,"name":"lamp","colour":"grey","qty":1,"note":null},{"id":2,"name":"fan","colour":"grey","qty":1,"note":null},` +
				`{"id":50,"name":"clock","colour":"red","qty":3,"note":"n"}]`,
		},
		{
			name:   "an explicit null is kept, not replaced by the default",
			method: "POST", path: "/gadgets?columns=name,colour&select=name,colour",
			body:    `[{"name":"fan","colour":null}]`,
			headers: prefer, status: 201, contentRange: "*/*", applied: applied,
			want:  `[{"name":"fan","colour":null}]`,
			table: "select name, colour from api.gadgets where id = 2", rows: `[{"name":"fan","colour":null}]`,
		},
		{
			name:   "without missing=default a missing key is NULL",
			method: "POST", path: "/gadgets?columns=name,colour&select=name,colour",
			body:    `[{"name":"fan"}]`,
			headers: []string{"Prefer", "return=representation"}, status: 201, contentRange: "*/*", applied: []string{"return=representation"},
			want:  `[{"name":"fan","colour":null}]`,
			table: "select name, colour from api.gadgets where id = 2", rows: `[{"name":"fan","colour":null}]`,
		},
		{
			name:   "an upsert fills defaults of new rows and keeps merged ones",
			method: "POST", path: "/gadgets?columns=id,name,colour&select=id,name,colour",
			body:    `[{"id":1,"name":"lantern"},{"name":"fan"}]`,
			headers: []string{"Prefer", "return=representation, missing=default, resolution=merge-duplicates"},
			status:  201, contentRange: "*/*",
			applied: []string{"resolution=merge-duplicates", "return=representation", "missing=default"},
			// The merged row took identity value 2 (see
			// TestMissingDefaultEvaluatesDefaultsForEveryRow).
			want:  `[{"id":1,"name":"lantern","colour":"grey"},{"id":3,"name":"fan","colour":"grey"}]`,
			table: "select id, name, colour from api.gadgets order by id",
			rows:  `[{"id":1,"name":"lantern","colour":"grey"},{"id":3,"name":"fan","colour":"grey"}]`,
		},
		{
			name:   "a PATCH without missing=default sets a missing key to NULL",
			method: "PATCH", path: "/gadgets?id=eq.1&columns=name,colour&select=id,name,colour",
			body:    `{"name":"lantern"}`,
			headers: []string{"Prefer", "return=representation"}, status: 200, contentRange: "0-0/*",
			applied: []string{"return=representation"},
			want:    `[{"id":1,"name":"lantern","colour":null}]`,
			table:   "select name, colour from api.gadgets where id = 1", rows: `[{"name":"lantern","colour":null}]`,
		},
	}, nil)
	runWriteCases(t, s, "select private.reset_parity(); update api.gadgets set colour = 'red', qty = 7 where id = 1", []writeCase{
		{
			name:   "a PATCH with columns= sets missing keys to their defaults",
			method: "PATCH", path: "/gadgets?id=eq.1&columns=name,colour,qty,note&select=id,name,colour,qty,note",
			body:    `{"name":"lantern","note":"n"}`,
			headers: prefer, status: 200, contentRange: "0-0/*", applied: applied,
			want:  `[{"id":1,"name":"lantern","colour":"grey","qty":1,"note":"n"}]`,
			table: gadgets, rows: `[{"id":1,"name":"lantern","colour":"grey","qty":1,"note":"n"}]`,
		},
		{
			name:   "a PATCH of an array with columns= fills the first row's missing keys",
			method: "PATCH", path: "/gadgets?id=eq.1&columns=name,qty&select=id,name,qty",
			body:    `[{"name":"lantern"},{"name":"torch","qty":9}]`,
			headers: prefer, status: 200, contentRange: "0-0/*", applied: applied,
			want:  `[{"id":1,"name":"lantern","qty":1}]`,
			table: "select name, colour, qty from api.gadgets where id = 1", rows: `[{"name":"lantern","colour":"red","qty":1}]`,
		},
	}, nil)

	t.Run("a key generated always cannot be filled and nothing is written", func(t *testing.T) {
		resetParity(t)
		untouched(t, parityTables, func() {
			res := s.do(t, "POST", "/tickets?columns=id,title", `[{"title":"a"}]`, prefer...)
			res.ExpectErrorFields(t, 400, "428C9", `cannot insert a non-DEFAULT value into column "id"`,
				`Column "id" is an identity column defined as GENERATED ALWAYS.`, "Use OVERRIDING SYSTEM VALUE to override.")
		})
	})
}

// TestMissingDefaultEvaluatesDefaultsForEveryRow mirrors InsertSpec's
// "apply defaults on missing values" as postgrest-js's "bulk insert with
// column defaults" observes it: PostgREST merges the column defaults into
// every payload row before reading the row's keys, so a bulk insert takes
// an identity's next value for each row, even a row that gives the key,
// and a later row gets a later value.
func TestMissingDefaultEvaluatesDefaultsForEveryRow(t *testing.T) {
	s := startServer(t)
	prefer := []string{"Prefer", "return=representation, missing=default"}
	applied := []string{"return=representation", "missing=default"}
	runWriteCases(t, s, "select private.reset_parity()", []writeCase{
		{
			name:   "a row that gives the identity still takes a value of it",
			method: "POST", path: "/gadgets?columns=id,name&select=id,name",
			body:    `[{"id":50,"name":"clock"},{"name":"fan"}]`,
			headers: prefer, status: 201, contentRange: "*/*", applied: applied,
			want:  `[{"id":50,"name":"clock"},{"id":3,"name":"fan"}]`,
			table: "select pg_catalog.nextval(pg_catalog.pg_get_serial_sequence('api.gadgets', 'id')) as next",
			rows:  `[{"next":4}]`,
		},
	}, nil)
}
