package e2e

import (
	"net/http"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// CORS through a real Caddy and database, header for header as PostgREST
// answers (its CorsSpec and CORS documentation). The rules alone are
// tested in caddymodule; these show where they sit: before authentication,
// on error responses, beside pgrest's own OPTIONS answer.

const (
	corsAllowMethods  = "GET, POST, PATCH, PUT, DELETE, OPTIONS, HEAD"
	corsExposeHeaders = "Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, Server, Transfer-Encoding, Range-Unit"
)

// expectHeaders fails t for each header of want that res does not carry
// with that value; "" means the header must be absent.
func expectHeaders(t *testing.T, res *response, want map[string]string) {
	t.Helper()
	for name, v := range want {
		if got := res.Header.Get(name); got != v {
			t.Errorf("%s %s: %s = %q, want %q", res.Method, name, name, got, v)
		}
	}
}

func TestCORSPreflight(t *testing.T) {
	s := startServer(t)
	t.Run("answered with PostgREST's headers and an empty 200", func(t *testing.T) {
		res := s.do(t, http.MethodOptions, "/cors_items", "",
			"Origin", "http://example.com",
			"Access-Control-Request-Method", "POST",
			"Access-Control-Request-Headers", "Foo,Bar")
		if res.Status != 200 || len(res.Body) != 0 {
			t.Fatalf("got %d %q, want 200 and no body", res.Status, res.Body)
		}
		expectHeaders(t, res, map[string]string{
			"Access-Control-Allow-Origin":      "*",
			"Access-Control-Allow-Methods":     corsAllowMethods,
			"Access-Control-Allow-Headers":     "Authorization, Foo, Bar, Accept, Accept-Language, Content-Language",
			"Access-Control-Max-Age":           "86400",
			"Access-Control-Allow-Credentials": "",
			// The preflight is CORS's answer, not pgrest's OPTIONS.
			"Allow": "",
		})
	})
	t.Run("answered for any path, as PostgREST's middleware does", func(t *testing.T) {
		res := s.do(t, http.MethodOptions, "/no_such_table", "",
			"Origin", "http://example.com", "Access-Control-Request-Method", "GET")
		if res.Status != 200 {
			t.Fatalf("got %d, want 200", res.Status)
		}
		expectHeaders(t, res, map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": corsAllowMethods})
	})
	t.Run("answered before authentication: a browser sends no token with it", func(t *testing.T) {
		s := startServer(t, "-db_anon_role")
		res := s.do(t, http.MethodOptions, "/cors_items", "",
			"Origin", "http://example.com",
			"Access-Control-Request-Method", "GET",
			"Access-Control-Request-Headers", "authorization")
		if res.Status != 200 {
			t.Fatalf("got %d %s, want 200", res.Status, res.Body)
		}
		expectHeaders(t, res, map[string]string{
			"Access-Control-Allow-Origin":  "*",
			"Access-Control-Allow-Headers": "Authorization, authorization, Accept, Accept-Language, Content-Language",
		})
	})
}

// An OPTIONS that is not a preflight pgrest approves gets pgrest's own
// OPTIONS answer, which (as PostgREST's) carries
// Access-Control-Allow-Origin: * on a site without an allow-list but none
// of the preflight headers, so a browser still refuses a preflight that
// needs them.
func TestCORSPlainOptionsIsPgrests(t *testing.T) {
	s := startServer(t)
	for _, tt := range []struct {
		name    string
		headers []string
	}{
		{"no Origin", nil},
		{"an Origin but no Access-Control-Request-Method", []string{"Origin", "http://example.com"}},
		{"a method pgrest does not take", []string{"Origin", "http://example.com", "Access-Control-Request-Method", "TRACE"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := s.do(t, http.MethodOptions, "/cors_items", "", tt.headers...)
			if res.Status != 200 {
				t.Fatalf("got %d, want 200", res.Status)
			}
			expectHeaders(t, res, map[string]string{
				"Allow":                        "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE",
				"Access-Control-Allow-Origin":  "*",
				"Access-Control-Allow-Methods": "",
				"Access-Control-Allow-Headers": "",
				"Access-Control-Max-Age":       "",
			})
		})
	}
}

func TestCORSActualRequests(t *testing.T) {
	s := startServer(t)
	cors := map[string]string{
		"Access-Control-Allow-Origin":      "*",
		"Access-Control-Expose-Headers":    corsExposeHeaders,
		"Access-Control-Allow-Credentials": "",
		"Access-Control-Max-Age":           "",
	}
	t.Run("a read", func(t *testing.T) {
		res := s.get(t, "/cors_items?order=id", "Origin", "http://example.com")
		res.Expect(t, 200, `[{"id":1,"name":"one"},{"id":2,"name":"two"}]`, cors)
	})
	t.Run("a write with a token", func(t *testing.T) {
		tok := token(t, jwt.MapClaims{"role": "webuser"})
		res := s.do(t, http.MethodPost, "/cors_items", `{"id":3,"name":"three"}`,
			"Origin", "http://example.com", "Authorization", "Bearer "+tok, "Prefer", "return=representation")
		t.Cleanup(func() { sql(t, "delete from api.cors_items where id = 3") })
		res.ExpectStatus(t, 201)
		expectHeaders(t, res, cors)
	})
	t.Run("a contract error", func(t *testing.T) {
		res := s.get(t, "/no_such_table", "Origin", "http://example.com")
		res.expectError(t, 404, "PGRST205")
		expectHeaders(t, res, cors)
	})
	t.Run("an authentication error", func(t *testing.T) {
		res := s.get(t, "/cors_items", "Origin", "http://example.com", "Authorization", "Bearer not.a.token")
		res.expectError(t, 401, "PGRST301")
		expectHeaders(t, res, cors)
	})
	t.Run("a permission error", func(t *testing.T) {
		res := s.do(t, http.MethodPost, "/cors_items", `{"id":9,"name":"x"}`, "Origin", "http://example.com")
		res.expectError(t, 401, "42501")
		expectHeaders(t, res, cors)
	})
	t.Run("no Origin, no CORS headers", func(t *testing.T) {
		res := s.get(t, "/cors_items")
		res.ExpectStatus(t, 200)
		expectHeaders(t, res, map[string]string{"Access-Control-Allow-Origin": "", "Access-Control-Expose-Headers": ""})
	})
}

func TestCORSAllowedOrigins(t *testing.T) {
	s := startServer(t, "server_cors_allowed_origins `http://example.com, http://example2.com`")
	t.Run("a listed origin's preflight is echoed with credentials", func(t *testing.T) {
		res := s.do(t, http.MethodOptions, "/cors_items", "",
			"Origin", "http://example2.com",
			"Access-Control-Request-Method", "POST",
			"Access-Control-Request-Headers", "Content-Type")
		if res.Status != 200 || len(res.Body) != 0 {
			t.Fatalf("got %d %q, want 200 and no body", res.Status, res.Body)
		}
		expectHeaders(t, res, map[string]string{
			"Access-Control-Allow-Origin":      "http://example2.com",
			"Access-Control-Allow-Credentials": "true",
			"Access-Control-Allow-Methods":     corsAllowMethods,
			"Access-Control-Allow-Headers":     "Authorization, Content-Type, Accept, Accept-Language, Content-Language",
			"Access-Control-Max-Age":           "86400",
		})
	})
	t.Run("a listed origin's request is echoed with credentials", func(t *testing.T) {
		res := s.get(t, "/cors_items?id=eq.1", "Origin", "http://example.com")
		res.ExpectStatus(t, 200)
		expectHeaders(t, res, map[string]string{
			"Access-Control-Allow-Origin":      "http://example.com",
			"Access-Control-Allow-Credentials": "true",
			"Access-Control-Expose-Headers":    corsExposeHeaders,
		})
	})
	t.Run("another origin's preflight gets pgrest's OPTIONS, which a browser refuses", func(t *testing.T) {
		res := s.do(t, http.MethodOptions, "/cors_items", "",
			"Origin", "http://evil.example", "Access-Control-Request-Method", "POST")
		expectHeaders(t, res, map[string]string{
			"Allow":                            "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE",
			"Access-Control-Allow-Origin":      "",
			"Access-Control-Allow-Methods":     "",
			"Access-Control-Allow-Headers":     "",
			"Access-Control-Allow-Credentials": "",
		})
	})
	t.Run("another origin's request is served without CORS headers", func(t *testing.T) {
		res := s.get(t, "/cors_items?id=eq.1", "Origin", "http://evil.example")
		res.ExpectStatus(t, 200)
		expectHeaders(t, res, map[string]string{"Access-Control-Allow-Origin": "", "Access-Control-Expose-Headers": ""})
	})
}
