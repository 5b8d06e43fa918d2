package e2e

import (
	"net/http"
	"testing"
)

// The contract's database code → HTTP status table (variant A), one
// representative code per row, raised by a function and forwarded.
func TestErrorsMapDatabaseCodesToStatuses(t *testing.T) {
	s := startServer(t)
	user := errUserToken(t)
	rows := []struct {
		name   string
		code   string
		status int
		auth   []string
	}{
		{"connection exception 08000 is 503", "08000", 503, nil},
		{"connection failure 08006 is 503", "08006", 503, nil},
		{"triggered action exception 09000 is 500", "09000", 500, nil},
		{"invalid grantor 0L000 is 403", "0L000", 403, nil},
		{"invalid role specification 0P000 is 403", "0P000", 403, nil},
		{"foreign key violation 23503 is 409", "23503", 409, nil},
		{"unique violation 23505 is 409", "23505", 409, nil},
		{"read-only transaction 25006 is 405", "25006", 405, nil},
		{"active sql transaction 25001 is 500", "25001", 500, nil},
		{"invalid authorization specification 28000 is 403", "28000", 403, nil},
		{"invalid password 28P01 is 403", "28P01", 403, nil},
		{"invalid transaction termination 2D000 is 500", "2D000", 500, nil},
		{"external routine exception 38000 is 500", "38000", 500, nil},
		{"external routine invocation exception 39000 is 500", "39000", 500, nil},
		{"savepoint exception 3B000 is 500", "3B000", 500, nil},
		{"serialization failure 40001 is 500", "40001", 500, nil},
		{"deadlock detected 40P01 is 500", "40P01", 500, nil},
		{"configuration limit exceeded 53400 is 500", "53400", 500, nil},
		{"insufficient resources 53000 is 503", "53000", 503, nil},
		{"out of memory 53200 is 503", "53200", 503, nil},
		{"program limit exceeded 54000 is 500", "54000", 500, nil},
		{"statement too complex 54001 is 500", "54001", 500, nil},
		{"object not in prerequisite state 55000 is 500", "55000", 500, nil},
		{"lock not available 55P03 is 500", "55P03", 500, nil},
		{"operator intervention 57000 is 500", "57000", 500, nil},
		{"query canceled 57014 is 500", "57014", 500, nil},
		{"system error 58000 is 500", "58000", 500, nil},
		{"config file error F0000 is 500", "F0000", 500, nil},
		{"fdw error HV000 is 500", "HV000", 500, nil},
		{"raise exception P0001 is 400", "P0001", 400, nil},
		{"no data found P0002 is 500", "P0002", 500, nil},
		{"assert failure P0004 is 500", "P0004", 500, nil},
		{"internal error XX000 is 500", "XX000", 500, nil},
		{"data corrupted XX001 is 500", "XX001", 500, nil},
		{"undefined function 42883 is 404", "42883", 404, nil},
		{"undefined table 42P01 is 404", "42P01", 404, nil},
		{"invalid object definition 42P17 is 500", "42P17", 500, nil},
		{"insufficient privilege 42501 for an authenticated request is 403", "42501", 403, user},
		{"insufficient privilege 42501 for an anonymous request is 401", "42501", 401, nil},
		{"division by zero 22012 falls to any other and is 400", "22012", 400, nil},
		{"not null violation 23502 falls to any other and is 400", "23502", 400, nil},
		{"check violation 23514 falls to any other and is 400", "23514", 400, nil},
		{"syntax error 42601 falls to any other and is 400", "42601", 400, nil},
		{"invalid text representation 22P02 falls to any other and is 400", "22P02", 400, nil},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			res := s.errDo(t, http.MethodPost, "/rpc/err_raise", `{"code":"`+row.code+`"}`, row.auth...)
			res.expectErrorBody(t, errWant{
				status:  row.status,
				code:    row.code,
				message: "err_raise " + row.code,
				details: "detail of " + row.code,
				hint:    "hint for " + row.code,
			})
			switch wa := res.Header.Get("WWW-Authenticate"); {
			case row.status == 401 && wa != "Bearer":
				t.Errorf("WWW-Authenticate %q on a 401, want Bearer", wa)
			case row.status != 401 && wa != "":
				t.Errorf("WWW-Authenticate %q on a %d", wa, row.status)
			}
		})
	}

	t.Run("a GET call raises through the same table", func(t *testing.T) {
		res := s.errDo(t, http.MethodGet, "/rpc/err_raise?code=23505", "")
		res.expectErrorBody(t, errWant{status: 409, code: "23505", message: "err_raise 23505",
			details: "detail of 23505", hint: "hint for 23505"})
	})
}

// The same rows caused for real, where that is cheap.
func TestErrorsForwardRealDatabaseFailures(t *testing.T) {
	s := startServer(t)
	user := errUserToken(t)
	rows := []struct {
		name   string
		method string
		path   string
		body   string
		auth   []string
		want   errWant
	}{
		{"a division by zero is 400 22012", http.MethodPost, "/rpc/err_divide", `{"n":0}`, nil,
			errWant{status: 400, code: "22012", message: "division by zero"}},
		{"a write called with GET runs read-only and is 405 25006", http.MethodGet, "/rpc/err_log_note?note=readonly", "", nil,
			errWant{status: 405, code: "25006", message: "cannot execute INSERT in a read-only transaction"}},
		{"a function reading a missing table is 404 42P01", http.MethodPost, "/rpc/err_missing_table", `{}`, nil,
			errWant{status: 404, code: "42P01", message: `relation "api.err_no_such_table" does not exist`}},
		{"a function calling a missing function is 404 42883", http.MethodPost, "/rpc/err_missing_function", `{}`, nil,
			errWant{status: 404, code: "42883", message: "function api.err_no_such_function() does not exist",
				hint: "No function matches the given name and argument types. You might need to add explicit type casts."}},
		{"a duplicate key is 409 23505 with the key in details", http.MethodPost, "/rpc/err_item_add", `{"id":1,"name":"again"}`, nil,
			errWant{status: 409, code: "23505", message: `duplicate key value violates unique constraint "err_items_pkey"`,
				details: "Key (id)=(1) already exists."}},
		{"a missing parent is 409 23503 with the key in details", http.MethodPost, "/rpc/err_child_add", `{"id":1,"parent_id":99}`, nil,
			errWant{status: 409, code: "23503", message: `insert or update on table "err_children" violates foreign key constraint "err_children_parent_id_fkey"`,
				details: `Key (parent_id)=(99) is not present in table "err_parents".`}},
		{"a null in a not-null column is 400 23502", http.MethodPost, "/rpc/err_item_add", `{"id":2}`, nil,
			errWant{status: 400, code: "23502", message: `null value in column "name" of relation "err_items" violates not-null constraint`,
				details: "Failing row contains (2, null)."}},
		{"reading a table without privilege anonymously is 401 42501", http.MethodPost, "/rpc/err_read_secrets", `{}`, nil,
			errWant{status: 401, code: "42501", message: "permission denied for table err_secrets"}},
		{"reading a table without privilege authenticated is 403 42501", http.MethodPost, "/rpc/err_read_secrets", `{}`, user,
			errWant{status: 403, code: "42501", message: "permission denied for table err_secrets"}},
		{"an argument of the wrong type is 400 22P02", http.MethodPost, "/rpc/err_divide", `{"n":"zero"}`, nil,
			errWant{status: 400, code: "22P02", message: `invalid input syntax for type integer: "zero"`}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			res := s.errDo(t, row.method, row.path, row.body, row.auth...)
			res.expectErrorBody(t, row.want)
		})
	}
	if n := errCount(t, "select count(*) from api.err_items where id = 2 or name = 'again'"); n != 0 {
		t.Errorf("%d rows of failed inserts were kept", n)
	}
}
