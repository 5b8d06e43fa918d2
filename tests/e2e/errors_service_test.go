package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Errors pgrest raises itself (PGRSTgxx), with the contract's status.
func TestErrorsRaisedByTheService(t *testing.T) {
	s := startServer(t)
	const (
		overloadHint  = "Try renaming the parameters or the function itself in the database so function overloading can be resolved"
		invalidPath   = "Invalid path specified in request URL"
		invalidSchema = "Invalid schema: private"
		exposedHint   = "Only the following schemas are exposed: api"
	)
	cases := []struct {
		name    string
		method  string
		path    string
		body    string
		headers []string
		want    errWant
	}{
		// Group 1: the request.
		{"a path of three segments is 404 PGRST125", http.MethodGet, "/a/b/c", "", nil,
			errWant{status: 404, code: "PGRST125", message: invalidPath}},
		{"an rpc path without a function name is 404 PGRST125", http.MethodPost, "/rpc/", "{}", nil,
			errWant{status: 404, code: "PGRST125", message: invalidPath}},
		{"an rpc path with an extra segment is 404 PGRST125", http.MethodGet, "/rpc/err_fn/x", "", nil,
			errWant{status: 404, code: "PGRST125", message: invalidPath}},
		{"TRACE on a table is 405 PGRST117", "TRACE", "/err_items", "", nil,
			errWant{status: 405, code: "PGRST117", message: "Unsupported HTTP method: TRACE"}},
		{"PROPFIND on a table is 405 PGRST117", "PROPFIND", "/err_items", "", nil,
			errWant{status: 405, code: "PGRST117", message: "Unsupported HTTP method: PROPFIND"}},
		{"an unknown verb on a function is 405 PGRST101", "MKCOL", "/rpc/err_fn", "", nil,
			errWant{status: 405, code: "PGRST101", message: "Cannot use the MKCOL method on RPC"}},
		{"TRACE on a function is 405 PGRST101", "TRACE", "/rpc/err_fn", "", nil,
			errWant{status: 405, code: "PGRST101", message: "Cannot use the TRACE method on RPC"}},
		{"POST on the API root is 405 PGRST117", http.MethodPost, "/", "{}", nil,
			errWant{status: 405, code: "PGRST117", message: "Unsupported HTTP method: POST"}},
		{"PUT on a function is 405 PGRST101", http.MethodPut, "/rpc/err_fn", "{}", nil,
			errWant{status: 405, code: "PGRST101", message: "Cannot use the PUT method on RPC"}},
		{"PATCH on a function is 405 PGRST101", http.MethodPatch, "/rpc/err_fn", "{}", nil,
			errWant{status: 405, code: "PGRST101", message: "Cannot use the PATCH method on RPC"}},
		{"DELETE on a function is 405 PGRST101", http.MethodDelete, "/rpc/err_fn", "", nil,
			errWant{status: 405, code: "PGRST101", message: "Cannot use the DELETE method on RPC"}},
		{"malformed JSON arguments are 400 PGRST102", http.MethodPost, "/rpc/err_raise", `{"code":`, nil,
			errWant{status: 400, code: "PGRST102", message: "Empty or invalid json"}},
		{"JSON with trailing garbage is 400 PGRST102", http.MethodPost, "/rpc/err_raise", `{"code":"P0001"} x`, nil,
			errWant{status: 400, code: "PGRST102", message: "Empty or invalid json"}},
		{"an application/pdf body is 415 PGRST107", http.MethodPost, "/rpc/err_fn", `%PDF`, []string{"Content-Type", "application/pdf"},
			errWant{status: 415, code: "PGRST107", message: "None of these media types are available: application/pdf"}},
		{"a text/xml body with no function taking it is 404 PGRST202", http.MethodPost, "/rpc/err_fn", `<args/>`, []string{"Content-Type", "text/xml"},
			errWant{status: 404, code: "PGRST202", message: "Could not find the function api.err_fn in the schema cache",
				details: "Searched for the function api.err_fn with a single unnamed xml parameter, but no matches were found in the schema cache."}},
		{"an unparseable Content-Type is 415 PGRST107", http.MethodPost, "/rpc/err_fn", `{}`, []string{"Content-Type", "json;;"},
			errWant{status: 415, code: "PGRST107", message: "None of these media types are available: json;;"}},
		{"an Accept-Profile naming an unexposed schema is 406 PGRST106", http.MethodGet, "/err_items", "", []string{"Accept-Profile", "private"},
			errWant{status: 406, code: "PGRST106", message: invalidSchema, hint: exposedHint}},
		{"a Content-Profile naming an unexposed schema is 406 PGRST106", http.MethodPost, "/rpc/err_fn", "{}", []string{"Content-Profile", "private"},
			errWant{status: 406, code: "PGRST106", message: invalidSchema, hint: exposedHint}},
		{"an unknown preference with handling=strict is 400 PGRST122", http.MethodGet, "/err_items", "", []string{"Prefer", "handling=strict, bogus=1"},
			errWant{status: 400, code: "PGRST122", message: "Invalid preferences given with handling=strict", details: "Invalid preferences: bogus=1"}},
		{"an invalid preference value with handling=strict is 400 PGRST122", http.MethodPost, "/rpc/err_fn", "{}", []string{"Prefer", "count=most, handling=strict"},
			errWant{status: 400, code: "PGRST122", message: "Invalid preferences given with handling=strict", details: "Invalid preferences: count=most"}},
		// Group 2: the schema cache.
		{"a table name one letter off is 404 PGRST205 suggesting the table", http.MethodGet, "/err_item", "", nil,
			errWant{status: 404, code: "PGRST205", message: "Could not find the table 'api.err_item' in the schema cache",
				hint: "Perhaps you meant the table 'api.err_items'"}},
		{"a table name like no other is 404 PGRST205 without a hint", http.MethodGet, "/qqzzxxvvww", "", nil,
			errWant{status: 404, code: "PGRST205", message: "Could not find the table 'api.qqzzxxvvww' in the schema cache"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := s.errDo(t, c.method, c.path, c.body, c.headers...)
			res.expectErrorBody(t, c.want)
		})
	}

	for _, c := range []struct{ name, method, path, body string }{
		{"overloads told apart by type only are 300 PGRST203 listing both", http.MethodPost, "/rpc/err_overloaded", `{"a":1}`},
		{"overloads told apart by type only are 300 PGRST203 with GET too", http.MethodGet, "/rpc/err_overloaded?a=1", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := s.errDo(t, c.method, c.path, c.body).expectError(t, 300, "PGRST203")
			msg, _ := e["message"].(string)
			// The candidates come in catalog order.
			if !strings.HasPrefix(msg, "Could not choose the best candidate function between: ") ||
				!strings.Contains(msg, "api.err_overloaded(a => integer)") || !strings.Contains(msg, "api.err_overloaded(a => text)") {
				t.Errorf("message %q does not list both candidates", msg)
			}
			if e["details"] != nil {
				t.Errorf("details %v", e["details"])
			}
			if e["hint"] != overloadHint {
				t.Errorf("hint %q, want %q", e["hint"], overloadHint)
			}
		})
	}

	t.Run("an unknown preference without handling=strict is ignored", func(t *testing.T) {
		res := s.errDo(t, http.MethodGet, "/err_items", "", "Prefer", "bogus=1")
		if res.Status != 200 {
			t.Fatalf("got %d %s", res.Status, res.Body)
		}
	})

	functions := []struct {
		name        string
		method      string
		path        string
		body        string
		fn          string // named in the message
		hint        string // "" for the reload hint
		searchedFor string
	}{
		{"an unknown function is 404 PGRST202 naming it and suggesting a reload",
			http.MethodPost, "/rpc/qqzz_no_such_function", "{}", "api.qqzz_no_such_function", "",
			" without parameters or with a single unnamed json/jsonb parameter"},
		{"an unknown function called with GET and arguments is 404 PGRST202 naming them",
			http.MethodGet, "/rpc/qqzz_no_such_function?b=1&a=2", "", "api.qqzz_no_such_function", "",
			" with parameters a, b"},
		{"a function name one letter off is 404 PGRST202 suggesting the function",
			http.MethodPost, "/rpc/err_raize", `{"code":"P0001"}`, "api.err_raize", "Perhaps you meant to call the function api.err_raise",
			" with parameter code or with a single unnamed json/jsonb parameter"},
		{"a known function with unknown arguments is 404 PGRST202 suggesting its parameters",
			http.MethodPost, "/rpc/err_divide", `{"m":1}`, "api.err_divide", "Perhaps you meant to call the function api.err_divide(n)",
			" with parameter m or with a single unnamed json/jsonb parameter"},
		{"a known function called without its required argument is 404 PGRST202",
			http.MethodGet, "/rpc/err_divide", "", "api.err_divide", "Perhaps you meant to call the function api.err_divide(n)",
			" without parameters"},
	}
	for _, c := range functions {
		t.Run(c.name, func(t *testing.T) {
			e := s.errDo(t, c.method, c.path, c.body).expectError(t, 404, "PGRST202")
			msg, _ := e["message"].(string)
			if !strings.Contains(msg, c.fn) || !strings.HasSuffix(msg, " in the schema cache") {
				t.Errorf("message %q does not name %s in the schema cache", msg, c.fn)
			}
			wantDetails := "Searched for the function " + c.fn + c.searchedFor + ", but no matches were found in the schema cache."
			if e["details"] != wantDetails {
				t.Errorf("details %q, want %q", e["details"], wantDetails)
			}
			// No hint (null) when nothing is close enough, as in PostgREST.
			var hint any
			if c.hint != "" {
				hint = c.hint
			}
			if e["hint"] != hint {
				t.Errorf("hint %q, want %q", e["hint"], hint)
			}
		})
	}
}

// The API root with the OpenAPI mode disabled.
func TestErrorsRootWithOpenAPIDisabledIs404(t *testing.T) {
	s := startServer(t, "openapi_mode disabled")
	t.Run("GET / is 404 PGRST126", func(t *testing.T) {
		s.errDo(t, http.MethodGet, "/", "").expectErrorBody(t, errWant{status: 404, code: "PGRST126",
			message: "Root endpoint metadata is disabled"})
	})
	t.Run("HEAD / is 404 with PGRST126 in Proxy-Status and no body", func(t *testing.T) {
		res := s.errDo(t, http.MethodHead, "/", "")
		res.expectError(t, 404, "PGRST126")
		if len(res.Body) != 0 {
			t.Errorf("body %q", res.Body)
		}
	})
}

// response.headers and response.status set by SQL: applied when valid,
// 500 PGRST111/PGRST112 when not.
func TestErrorsInvalidResponseSettingsAre500(t *testing.T) {
	s := startServer(t)
	const (
		headersMessage = "response.headers guc must be a JSON array composed of objects with a single key and a string value"
		statusMessage  = "response.status guc must be a valid status code"
	)
	invalidHeaders := []struct{ name, value string }{
		{"an object instead of an array", `{"X-Err":"yes"}`},
		{"an element with two keys", `[{"X-A":"1","X-B":"2"}]`},
		{"a number value", `[{"X-A":1}]`},
		{"a null value", `[{"X-A":null}]`},
		{"an element that is not an object", `["X-A"]`},
		{"text that is not JSON", `X-A: 1`},
	}
	invalidStatus := []string{"abc", "-1", "0", "2.5"}
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		call := func(t *testing.T, fn, value string) *response {
			t.Helper()
			if m == http.MethodGet {
				return s.errDo(t, m, "/rpc/"+fn+"?value="+url.QueryEscape(value), "")
			}
			return s.errDo(t, m, "/rpc/"+fn, `{"value":`+errJSON(value)+`}`)
		}
		for _, c := range invalidHeaders {
			t.Run(m+": response.headers holding "+c.name+" is 500 PGRST111", func(t *testing.T) {
				call(t, "err_set_headers", c.value).expectErrorBody(t, errWant{status: 500, code: "PGRST111", message: headersMessage})
			})
		}
		for _, v := range invalidStatus {
			t.Run(m+": response.status "+errJSON(v)+" is 500 PGRST112", func(t *testing.T) {
				call(t, "err_set_status", v).expectErrorBody(t, errWant{status: 500, code: "PGRST112", message: statusMessage})
			})
		}
		t.Run(m+": valid response.headers are added to the response", func(t *testing.T) {
			res := call(t, "err_set_headers", `[{"X-Err":"yes"},{"X-Err-Other":"too"}]`)
			if res.Status != 200 || string(res.Body) != `"ok"` {
				t.Fatalf("got %d %s", res.Status, res.Body)
			}
			if res.Header.Get("X-Err") != "yes" || res.Header.Get("X-Err-Other") != "too" {
				t.Errorf("headers not applied: %v", res.Header)
			}
			if ps := res.Header.Get("Proxy-Status"); ps != "" {
				t.Errorf("Proxy-Status %q on a success", ps)
			}
		})
		t.Run(m+": a valid response.status replaces the status", func(t *testing.T) {
			res := call(t, "err_set_status", "418")
			if res.Status != 418 || string(res.Body) != `"ok"` {
				t.Fatalf("got %d %s", res.Status, res.Body)
			}
		})
	}
}
