package e2e

import (
	"net/http"
	"testing"
)

// An error response never leaves a write behind, with and without
// prepared statements; only response.status, which PostgREST too reads
// after the commit, is answered after the write is kept.
func TestErrorsLeaveNothingHalfWritten(t *testing.T) {
	for _, prepared := range []string{"true", "false"} {
		t.Run("with db_prepared_statements "+prepared, func(t *testing.T) {
			s := startServer(t, "db_prepared_statements "+prepared)
			cases := []struct {
				name   string
				path   string
				body   func(note string) string
				status int
				code   string // "" for a success
				kept   int
			}{
				{"a function that writes then raises keeps nothing", "/rpc/err_log_then_raise",
					func(n string) string { return `{"note":` + errJSON(n) + `}` }, 400, "P0001", 0},
				// PostgREST reads response.status once its transaction has
				// committed: the answer is an error, the write is kept.
				{"a function that writes then sets an invalid response.status is 500 PGRST112 and keeps its write, as in PostgREST", "/rpc/err_log_then_status",
					func(n string) string { return `{"note":` + errJSON(n) + `,"status":"abc"}` }, 500, "PGRST112", 1},
				{"a function that writes then sets a valid response.status keeps its write", "/rpc/err_log_then_status",
					func(n string) string { return `{"note":` + errJSON(n) + `,"status":"201"}` }, 201, "", 1},
				{"a function that only writes keeps its write", "/rpc/err_log_note",
					func(n string) string { return `{"note":` + errJSON(n) + `}` }, 200, "", 1},
				{"a write whose key is taken is 409 23505 and keeps nothing", "/rpc/err_item_add",
					func(n string) string { return `{"id":1,"name":` + errJSON(n) + `}` }, 409, "23505", 0},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					note := errNote(t)
					res := s.errDo(t, http.MethodPost, c.path, c.body(note))
					if c.code != "" {
						res.expectError(t, c.status, c.code)
					} else if res.Status != c.status {
						t.Fatalf("status %d, want %d; body %s", res.Status, c.status, res.Body)
					}
					kept := errLogged(t, note) + errCount(t, "select count(*) from api.err_items where name = $1", note)
					if kept != c.kept {
						t.Errorf("%d rows kept, want %d", kept, c.kept)
					}
				})
			}

			t.Run("the connection serves the next request after a failed write", func(t *testing.T) {
				for i := 0; i < 3; i++ {
					s.errDo(t, http.MethodPost, "/rpc/err_log_then_raise", `{"note":"x"}`).expectError(t, 400, "P0001")
					note := errNote(t)
					if res := s.errDo(t, http.MethodPost, "/rpc/err_log_note", `{"note":`+errJSON(note)+`}`); res.Status != 200 {
						t.Fatalf("got %d %s", res.Status, res.Body)
					}
					if n := errLogged(t, note); n != 1 {
						t.Fatalf("%d rows kept, want 1", n)
					}
				}
			})
		})
	}
}

// The transaction ends as db_tx_end and Prefer: tx= say, and a failing
// write ends in rollback whatever they say.
func TestErrorsTransactionEndsAsConfigured(t *testing.T) {
	for _, prepared := range []string{"true", "false"} {
		t.Run("with db_prepared_statements "+prepared, func(t *testing.T) {
			ends := []struct {
				name    string
				txEnd   string
				prefer  string
				kept    int
				applied string
			}{
				{"db_tx_end commit keeps the write", "commit", "", 1, ""},
				{"db_tx_end commit ignores Prefer tx=rollback", "commit", "tx=rollback", 1, ""},
				{"db_tx_end rollback answers 200 but keeps nothing", "rollback", "", 0, ""},
				{"db_tx_end rollback ignores Prefer tx=commit", "rollback", "tx=commit", 0, ""},
				{"db_tx_end commit-allow-override keeps the write without a preference", "commit-allow-override", "", 1, ""},
				{"db_tx_end commit-allow-override with Prefer tx=rollback keeps nothing and says so", "commit-allow-override", "tx=rollback", 0, "tx=rollback"},
				{"db_tx_end rollback-allow-override keeps nothing without a preference", "rollback-allow-override", "", 0, ""},
				{"db_tx_end rollback-allow-override with Prefer tx=commit keeps the write and says so", "rollback-allow-override", "tx=commit", 1, "tx=commit"},
			}
			for _, c := range ends {
				t.Run(c.name, func(t *testing.T) {
					s := startServer(t, "db_prepared_statements "+prepared, "db_tx_end "+c.txEnd)
					note := errNote(t)
					var headers []string
					if c.prefer != "" {
						headers = []string{"Prefer", c.prefer}
					}
					res := s.errDo(t, http.MethodPost, "/rpc/err_log_note", `{"note":`+errJSON(note)+`}`, headers...)
					if res.Status != 200 {
						t.Fatalf("got %d %s", res.Status, res.Body)
					}
					if _, ok := res.JSON(t).(float64); !ok {
						t.Errorf("body %s is not the new row's id", res.Body)
					}
					if pa := res.Header.Get("Preference-Applied"); pa != c.applied {
						t.Errorf("Preference-Applied %q, want %q", pa, c.applied)
					}
					if n := errLogged(t, note); n != c.kept {
						t.Errorf("%d rows kept, want %d", n, c.kept)
					}

					// A failing write ends in rollback whatever is preferred.
					failed := errNote(t)
					s.errDo(t, http.MethodPost, "/rpc/err_log_then_raise", `{"note":`+errJSON(failed)+`}`, "Prefer", "tx=commit").
						expectError(t, 400, "P0001")
					if n := errLogged(t, failed); n != 0 {
						t.Errorf("a failed write with Prefer tx=commit kept %d rows", n)
					}
				})
			}
		})
	}
}
