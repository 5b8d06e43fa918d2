package write

import (
	"testing"
)

// TestColumnPrivilegesOnWrites: a write returns only the columns its
// response reads, so a role that may insert every column of accounts but
// read only id and owner can POST and PATCH with select= naming those
// (InsertSpec "table with limited privileges"); asking for another column
// is the database's 42501.
func TestColumnPrivilegesOnWrites(t *testing.T) {
	s := startServer(t)
	user := asUser(t)
	with := func(prefer string) []string {
		return append(append([]string(nil), user...), "Prefer", prefer)
	}
	accounts := "select id, owner, pin, note from api.accounts order by id"
	runWriteCases(t, s, "select private.reset_parity()", []writeCase{
		{
			name:   "a POST selecting the readable columns",
			method: "POST", path: "/accounts?select=id,owner", body: `{"owner":"bob","pin":"9999"}`,
			headers: with("return=representation"), status: 201, contentRange: "*/*", applied: []string{"return=representation"},
			want:  `[{"id":2,"owner":"bob"}]`,
			table: accounts, rows: `[{"id":1,"owner":"ann","pin":"1234","note":null},{"id":2,"owner":"bob","pin":"9999","note":null}]`,
		},
		{
			name:   "a POST selecting one readable column",
			method: "POST", path: "/accounts?select=owner", body: `[{"owner":"bob"},{"owner":"cy"}]`,
			headers: with("return=representation"), status: 201, contentRange: "*/*", applied: []string{"return=representation"},
			want:  `[{"owner":"bob"},{"owner":"cy"}]`,
			table: "select id, owner, pin from api.accounts where id > 1 order by id",
			rows:  `[{"id":2,"owner":"bob","pin":"0000"},{"id":3,"owner":"cy","pin":"0000"}]`,
		},
		{
			name:   "a POST with return=minimal needs no SELECT",
			method: "POST", path: "/accounts", body: `{"owner":"bob","pin":"9999","note":"n"}`,
			headers: with("return=minimal"), status: 201, contentRange: "*/*", applied: []string{"return=minimal"},
			table: "select id, owner, note from api.accounts where id = 2", rows: `[{"id":2,"owner":"bob","note":"n"}]`,
		},
		{
			name:   "a POST with return=headers-only reads only the key",
			method: "POST", path: "/accounts", body: `{"owner":"bob"}`,
			headers: with("return=headers-only"), status: 201, contentRange: "*/*", location: "/accounts?id=eq.2",
			applied: []string{"return=headers-only"},
			table:   "select id, owner from api.accounts where id = 2", rows: `[{"id":2,"owner":"bob"}]`,
		},
		{
			name:   "a PATCH of an updatable column selecting readable ones",
			method: "PATCH", path: "/accounts?id=eq.1&select=id,owner", body: `{"note":"vip"}`,
			headers: with("return=representation"), status: 200, contentRange: "0-0/*", applied: []string{"return=representation"},
			want:  `[{"id":1,"owner":"ann"}]`,
			table: "select note from api.accounts where id = 1", rows: `[{"note":"vip"}]`,
		},
		{
			name:   "a PATCH with return=minimal",
			method: "PATCH", path: "/accounts?id=eq.1", body: `{"note":"vip"}`,
			headers: with("return=minimal"), status: 204, contentRange: "0-0/*", applied: []string{"return=minimal"},
			table: "select note from api.accounts where id = 1", rows: `[{"note":"vip"}]`,
		},
		{
			name:   "an empty PATCH reads no column",
			method: "PATCH", path: "/accounts?id=eq.1", body: `{}`,
			headers: user, status: 204, contentRange: "*/*",
			table: accounts, rows: `[{"id":1,"owner":"ann","pin":"1234","note":null}]`,
		},
		{
			name:   "an empty PATCH with a representation of readable columns",
			method: "PATCH", path: "/accounts?id=eq.1&select=id", body: `{}`,
			headers: with("return=representation"), status: 200, contentRange: "*/*", applied: []string{"return=representation"},
			want: `[]`, table: accounts, rows: `[{"id":1,"owner":"ann","pin":"1234","note":null}]`,
		},
	}, nil)

	denied := func(t *testing.T, method, path, body string, headers []string) {
		t.Helper()
		resetParity(t)
		untouched(t, parityTables, func() {
			res := s.do(t, method, path, body, headers...)
			res.ExpectErrorFields(t, 403, "42501", "permission denied for table accounts", nil, nil)
		})
	}
	t.Run("a POST selecting an unreadable column is denied and writes nothing", func(t *testing.T) {
		denied(t, "POST", "/accounts?select=id,owner,pin", `{"owner":"bob"}`, with("return=representation"))
	})
	t.Run("a POST of every column is denied and writes nothing", func(t *testing.T) {
		denied(t, "POST", "/accounts", `{"owner":"bob"}`, with("return=representation"))
	})
	t.Run("a PATCH of a column that is not updatable is denied", func(t *testing.T) {
		denied(t, "PATCH", "/accounts?id=eq.1", `{"pin":"0000"}`, with("return=minimal"))
	})
	t.Run("a PATCH selecting an unreadable column is denied", func(t *testing.T) {
		denied(t, "PATCH", "/accounts?id=eq.1&select=id,pin", `{"note":"vip"}`, with("return=representation"))
	})
}

// TestLocationOfANullKey: PostgREST writes a NULL key of the inserted row
// as is.null in the Location of return=headers-only. The drafts view's
// trigger stores the row but returns it as sent, without its id.
func TestLocationOfANullKey(t *testing.T) {
	s := startServer(t)
	runWriteCases(t, s, "select private.reset_parity()", []writeCase{
		{
			name:   "a NULL key is is.null",
			method: "POST", path: "/drafts", body: `{"title":"plan"}`, headers: []string{"Prefer", "return=headers-only"},
			status: 201, contentRange: "*/*", location: "/drafts?id=is.null", applied: []string{"return=headers-only"},
			table: "select id, title from private.draft_rows", rows: `[{"id":1,"title":"plan"}]`,
		},
		{
			name:   "a key sent in the body is eq",
			method: "POST", path: "/drafts", body: `{"id":7,"title":"plan"}`, headers: []string{"Prefer", "return=headers-only"},
			status: 201, contentRange: "*/*", location: "/drafts?id=eq.7", applied: []string{"return=headers-only"},
			table: "select title from private.draft_rows", rows: `[{"title":"plan"}]`,
		},
		{
			name:   "a bigint key keeps every digit",
			method: "POST", path: "/ledger", body: `{"id":9007199254740993,"memo":"m"}`, headers: []string{"Prefer", "return=headers-only"},
			status: 201, contentRange: "*/*", location: "/ledger?id=eq.9007199254740993", applied: []string{"return=headers-only"},
			table: "select id::text from api.ledger", rows: `[{"id":"9007199254740993"}]`,
		},
		{
			name:   "several rows give no Location",
			method: "POST", path: "/gadgets", body: `[{"name":"fan"},{"name":"clock"}]`, headers: []string{"Prefer", "return=headers-only"},
			status: 201, contentRange: "*/*", applied: []string{"return=headers-only"},
			table: "select id from api.gadgets where id > 1 order by id", rows: `[{"id":2},{"id":3}]`,
		},
	}, nil)
}
