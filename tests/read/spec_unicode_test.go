package read

import (
	"net/http"
	"testing"
)

// TestUnicodeSpec mirrors PostgREST v16.2's
// test/spec/Feature/Query/UnicodeSpec.hs, "Can read and write values": a
// schema (تست), table (موارد) and column (هویت) named in Arabic, read and
// written through their percent-encoded names. Its commits delete the row
// they insert again. A comment gives each request's line.
func TestUnicodeSpec(t *testing.T) {
	s := startSpecServer(t, "db_schemas تست", "db_tx_end rollback-allow-override")
	runSpecRequests(t, s, []specRequest{
		// L19
		{name: `Can read and write values`, path: `/%D9%85%D9%88%D8%A7%D8%B1%D8%AF`, body: `[]`},
		// L22
		{name: `Can read and write values (2)`, method: http.MethodPost, path: `/%D9%85%D9%88%D8%A7%D8%B1%D8%AF`,
			header: []string{"Prefer", "tx=commit", "Prefer", "return=representation"}, reqBody: `{ "هویت": 1 }`,
			status: http.StatusCreated, body: `[{ "هویت": 1 }]`},
		// L29
		{name: `Can read and write values (3)`, path: `/%D9%85%D9%88%D8%A7%D8%B1%D8%AF`, body: `[{ "هویت": 1 }]`},
		// L33
		{name: `Can read and write values (4)`, method: http.MethodDelete, path: `/%D9%85%D9%88%D8%A7%D8%B1%D8%AF`,
			header: []string{"Prefer", "tx=commit"}, status: http.StatusNoContent, raw: true, match: map[string]string{"Content-Type": ""}},
	})
}
