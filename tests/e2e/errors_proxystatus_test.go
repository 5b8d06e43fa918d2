package e2e

import (
	"net/http"
	"testing"
)

// Every error response carries Proxy-Status: pgrest; error=<code>, HEAD
// included, where it is the only place the code shows.
func TestErrorsCarryProxyStatus(t *testing.T) {
	s := startServer(t)
	cases := []struct {
		name   string
		method string
		path   string
		body   string
		status int
		code   string
	}{
		{"HEAD of a missing table is 404 with PGRST205 in Proxy-Status", http.MethodHead, "/err_nonexistent", "", 404, "PGRST205"},
		{"HEAD of a function that raises carries the database code", http.MethodHead, "/rpc/err_raise?code=23505", "", 409, "23505"},
		{"HEAD of a function raising PT402 carries the custom code", http.MethodHead, "/rpc/err_payment", "", 402, "PT402"},
		{"HEAD of a missing function carries PGRST202", http.MethodHead, "/rpc/err_nonexistent", "", 404, "PGRST202"},
		{"HEAD of an invalid path carries PGRST125", http.MethodHead, "/a/b/c", "", 404, "PGRST125"},
		{"HEAD of a function without privilege carries 42501", http.MethodHead, "/rpc/err_read_secrets", "", 401, "42501"},
		{"GET of a missing table carries PGRST205", http.MethodGet, "/err_nonexistent", "", 404, "PGRST205"},
		{"POST of a function that raises carries the database code", http.MethodPost, "/rpc/err_raise", `{"code":"40001"}`, 500, "40001"},
		{"a custom SQLSTATE PGRST error carries its own code", http.MethodPost, "/rpc/err_pgrst",
			`{"message":"{\"code\":\"ABC\",\"message\":\"m\"}","detail":"{\"status\":409}"}`, 409, "ABC"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := s.errDo(t, c.method, c.path, c.body)
			res.expectError(t, c.status, c.code)
			if c.method == http.MethodHead && len(res.Body) != 0 {
				t.Errorf("HEAD answered with a body: %q", res.Body)
			}
		})
	}

	t.Run("a successful response carries no Proxy-Status", func(t *testing.T) {
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			res := s.errDo(t, m, "/err_items", "")
			if res.Status != 200 {
				t.Fatalf("%s /err_items: %d %s", m, res.Status, res.Body)
			}
			if ps := res.Header.Get("Proxy-Status"); ps != "" {
				t.Errorf("%s /err_items: Proxy-Status %q on a 200", m, ps)
			}
		}
	})
}

// The contract's example: a statement timeout, also of a counted HEAD
// request, is 500 with error=57014. The pre-request shortens the
// statement timeout of the request's transaction, so the main statement
// that follows runs under it.
func TestErrorsStatementTimeoutIs500(t *testing.T) {
	s := startServer(t, "db_pre_request api.err_short_timeout")
	const message = "canceling statement due to statement timeout"
	cases := []struct {
		name    string
		method  string
		path    string
		body    string
		headers []string
	}{
		{"a GET of a slow view times out with 500 57014", http.MethodGet, "/err_slow_view", "", nil},
		{"a counted HEAD of a slow view times out with 500 and error=57014", http.MethodHead, "/err_slow_view", "", []string{"Prefer", "count=exact"}},
		{"a slow function called with POST times out with 500 57014", http.MethodPost, "/rpc/err_sleep", `{"seconds":2}`, nil},
		{"a slow function called with GET times out with 500 57014", http.MethodGet, "/rpc/err_sleep?seconds=2", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// 57014 is the timeout's cut: the 2 s statement would
			// otherwise have ended with a 200.
			res := s.errDo(t, c.method, c.path, c.body, c.headers...)
			e := res.expectError(t, 500, "57014")
			if c.method == http.MethodHead {
				if len(res.Body) != 0 {
					t.Errorf("HEAD answered with a body: %q", res.Body)
				}
			} else if e["message"] != message {
				t.Errorf("message %q, want %q", e["message"], message)
			}
		})
	}

	t.Run("a quick request under the same timeout still succeeds", func(t *testing.T) {
		res := s.errDo(t, http.MethodGet, "/err_items", "")
		if res.Status != 200 {
			t.Fatalf("got %d %s", res.Status, res.Body)
		}
	})
}
