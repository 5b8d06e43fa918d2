package e2e

import (
	"net/http"
	"testing"
)

// TestCorsSpec mirrors PostgREST's CorsSpec request for request, on a
// table of this package's fixture where the spec reads /items (and
// /shops).
func TestCorsSpec(t *testing.T) {
	preflight := func(origin string, requestHeaders string) []string {
		return []string{"Accept", "*/*", "Origin", origin,
			"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", requestHeaders}
	}
	t.Run("default settings", func(t *testing.T) {
		s := startServer(t)
		t.Run("replies naively and permissively to preflight request", func(t *testing.T) {
			res := s.do(t, http.MethodOptions, "/", "", preflight("http://example.com", "Foo,Bar")...)
			res.Expect(t, http.StatusOK, "", map[string]string{
				"Access-Control-Allow-Origin":  "*",
				"Access-Control-Allow-Methods": corsAllowMethods,
				"Access-Control-Allow-Headers": "Authorization, Foo, Bar, Accept, Accept-Language, Content-Language",
				"Access-Control-Max-Age":       "86400",
			})
		})
		t.Run("exposes necesssary response headers to regular request", func(t *testing.T) {
			res := s.get(t, "/cors_items", "Origin", "http://example.com")
			res.ExpectStatus(t, http.StatusOK)
			expectHeaders(t, res, map[string]string{"Access-Control-Expose-Headers": corsExposeHeaders})
		})
		t.Run("allows INFO body through even with CORS request headers present to postflight request", func(t *testing.T) {
			for _, headers := range [][]string{
				{"Host", "localhost:3000", "User-Agent", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.9; rv:32.0) Gecko/20100101 Firefox/32.0",
					"Origin", "http://localhost:8000", "Accept", "text/csv, */*; q=0.01", "Accept-Language", "en-US,en;q=0.5",
					"Accept-Encoding", "gzip, deflate", "Referer", "http://localhost:8000/", "Connection", "keep-alive"},
				{"Accept", "application/json"},
				{"Accept", "application/geo+json"},
			} {
				res := s.do(t, http.MethodOptions, "/cors_items", "", headers...)
				res.Expect(t, http.StatusOK, "", map[string]string{
					"Access-Control-Allow-Origin": "*",
					"Allow":                       "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE",
				})
			}
		})
	})
	t.Run("test preflight/non-preflight request and cors server allowed config", func(t *testing.T) {
		s := startServer(t, "server_cors_allowed_origins `http://example.com, http://example2.com`")
		t.Run("OPTIONS preflight request should return Access-Control-Allow-Origin equal to origin", func(t *testing.T) {
			res := s.do(t, http.MethodOptions, "/cors_items", "", preflight("http://example.com", "Content-Type")...)
			res.ExpectStatus(t, http.StatusOK)
			expectHeaders(t, res, map[string]string{
				"Access-Control-Allow-Origin":      "http://example.com",
				"Access-Control-Allow-Credentials": "true",
			})
		})
		t.Run("GET no preflight request should return Access-Control-Allow-Origin equal to origin", func(t *testing.T) {
			res := s.get(t, "/cors_items", "Accept", "*/*", "Origin", "http://example.com")
			res.ExpectStatus(t, http.StatusOK)
			expectHeaders(t, res, map[string]string{"Access-Control-Allow-Origin": "http://example.com"})
		})
		t.Run("GET no preflight request should not return Access-Control-Allow-Origin", func(t *testing.T) {
			res := s.get(t, "/cors_items", "Accept", "*/*", "Origin", "http://invalid.com")
			res.ExpectStatus(t, http.StatusOK)
			expectHeaders(t, res, map[string]string{"Access-Control-Allow-Origin": ""})
		})
	})
	t.Run("test preflight request with empty cors allowed origin config", func(t *testing.T) {
		s := startServer(t) // the setting unset, as an empty list leaves it
		t.Run("OPTIONS preflight request should allow all origins when config is not set or empty", func(t *testing.T) {
			res := s.do(t, http.MethodOptions, "/cors_items", "", preflight("http://anyorigin.com", "Content-Type")...)
			res.ExpectStatus(t, http.StatusOK)
			expectHeaders(t, res, map[string]string{
				"Access-Control-Allow-Origin":  "*",
				"Access-Control-Allow-Methods": corsAllowMethods,
			})
		})
	})
}

// TestOptionsSpecTable mirrors OptionsSpec's "a table": OPTIONS lists the
// methods of a writable table in Allow with an empty body, and is 404 for
// an unknown table.
func TestOptionsSpecTable(t *testing.T) {
	s := startServer(t)
	t.Run("includes read/write methods for writeable table", func(t *testing.T) {
		res := s.do(t, http.MethodOptions, "/cors_items", "")
		res.Expect(t, http.StatusOK, "", map[string]string{
			"Allow": "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE", "Content-Length": "0"})
	})
	t.Run("fails with 404 for an unknown table", func(t *testing.T) {
		s.do(t, http.MethodOptions, "/unknown", "").expectError(t, http.StatusNotFound, "PGRST205")
	})
}
