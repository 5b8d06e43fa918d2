package security

import (
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// CORS with server_cors_allowed_origins set: only the listed origins may
// read pgrest's answers from a browser. A cache between the browser and
// pgrest must not hand one origin's answer to another (Vary: Origin on
// every answer, since each depends on the origin), no answer may open
// itself to every origin (Access-Control-Allow-Origin: *), and `null`,
// the origin of sandboxed frames, file: pages and some redirects, which
// any page can take on, cannot be listed.

const (
	listedOrigin   = "https://app.example"
	unlistedOrigin = "https://evil.example"
)

// startAllowListServer serves the fixture with lines and only
// listedOrigin allowed.
func startAllowListServer(t *testing.T, lines ...string) *pgresttest.Server {
	t.Helper()
	dirs := pgresttest.Directives(serverDirs(), append([]string{"server_cors_allowed_origins " + listedOrigin}, lines...)...)
	return pgresttest.StartWith(t, dirs, pgresttest.Options{LogFile: filepath.Join(t.TempDir(), "caddy.log")})
}

// corsRequest is a request a browser, or anyone, may send.
type corsRequest struct {
	name, method, path string
	headers            []string
	status             int
}

func TestCORSAllowListVariesOnOrigin(t *testing.T) {
	s := startAllowListServer(t)
	preflight := func(origin string) []string {
		return []string{"Origin", origin, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "Content-Type"}
	}
	badToken := []string{"Authorization", "Bearer not.a.token"}
	var requests []corsRequest
	for _, o := range []struct{ name, origin string }{{"listed", listedOrigin}, {"unlisted", unlistedOrigin}} {
		origin := []string{"Origin", o.origin}
		requests = append(requests,
			corsRequest{o.name + " origin's preflight", http.MethodOptions, "/items", preflight(o.origin), 200},
			corsRequest{o.name + " origin's OPTIONS of a table", http.MethodOptions, "/items", origin, 200},
			corsRequest{o.name + " origin's OPTIONS of a function", http.MethodOptions, "/rpc/echo", origin, 200},
			corsRequest{o.name + " origin's read", http.MethodGet, "/items?select=id", origin, 200},
			corsRequest{o.name + " origin's call", http.MethodGet, "/rpc/echo?msg=hi", origin, 200},
			corsRequest{o.name + " origin's unknown table", http.MethodGet, "/no_such_table", origin, 404},
			corsRequest{o.name + " origin's OPTIONS of an unknown table", http.MethodOptions, "/no_such_table", origin, 404},
			corsRequest{o.name + " origin's bad token", http.MethodGet, "/items", append(origin, badToken...), 401},
			corsRequest{o.name + " origin's forbidden write", http.MethodDelete, "/items?id=eq.1", origin, 401},
		)
	}
	requests = append(requests,
		corsRequest{"a read without Origin", http.MethodGet, "/items?select=id", nil, 200},
		corsRequest{"an error without Origin", http.MethodGet, "/no_such_table", nil, 404},
	)
	for _, r := range requests {
		t.Run(r.name, func(t *testing.T) {
			res := s.Do(t, r.method, r.path, "", r.headers...)
			res.ExpectStatus(t, r.status)
			if !varies(res.Header, "Origin") {
				t.Errorf("Vary = %q, want it to name Origin", res.Header.Values("Vary"))
			}
		})
	}
}

// varies says a response's Vary names header.
func varies(h http.Header, header string) bool {
	for _, v := range h.Values("Vary") {
		for name := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(name), header) {
				return true
			}
		}
	}
	return false
}

func TestCORSAllowListOptionsOpensToNoOtherOrigin(t *testing.T) {
	s := startAllowListServer(t)
	for _, r := range []corsRequest{
		{"an unlisted origin's OPTIONS of a table", http.MethodOptions, "/items", []string{"Origin", unlistedOrigin}, 200},
		{"an unlisted origin's OPTIONS of a function", http.MethodOptions, "/rpc/echo", []string{"Origin", unlistedOrigin}, 200},
		{"an unlisted origin's preflight", http.MethodOptions, "/items",
			[]string{"Origin", unlistedOrigin, "Access-Control-Request-Method", "DELETE"}, 200},
		{"an OPTIONS without Origin", http.MethodOptions, "/items", nil, 200},
	} {
		t.Run(r.name, func(t *testing.T) {
			res := s.Do(t, r.method, r.path, "", r.headers...)
			res.ExpectStatus(t, r.status)
			if res.Header.Get("Allow") == "" {
				t.Errorf("no Allow: not pgrest's OPTIONS answer")
			}
			for _, h := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Access-Control-Allow-Methods"} {
				if v := res.Header.Values(h); len(v) > 0 {
					t.Errorf("%s: %q, want none", h, v)
				}
			}
		})
	}
	t.Run("a listed origin's OPTIONS gets its own origin, never *", func(t *testing.T) {
		res := s.Do(t, http.MethodOptions, "/items", "", "Origin", listedOrigin)
		res.ExpectStatus(t, 200)
		if got := res.Header.Values("Access-Control-Allow-Origin"); !slices.Equal(got, []string{listedOrigin}) {
			t.Errorf("Access-Control-Allow-Origin: %q, want only %q", got, listedOrigin)
		}
		if got := res.Header.Get("Access-Control-Allow-Credentials"); got != "true" {
			t.Errorf("Access-Control-Allow-Credentials: %q, want true", got)
		}
	})
}

// Without an allow-list every origin may read every answer, and OPTIONS
// keeps PostgREST's Access-Control-Allow-Origin: *.
func TestCORSWithoutAllowListOptionsStaysOpen(t *testing.T) {
	s := startServer(t)
	res := s.Do(t, http.MethodOptions, "/items", "", "Origin", unlistedOrigin)
	res.ExpectStatus(t, 200)
	if got := res.Header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("Access-Control-Allow-Origin: %q, want *", got)
	}
}

func TestCORSNullOriginIsRefused(t *testing.T) {
	for _, origins := range []string{"null", listedOrigin + " null"} {
		t.Run("in the Caddyfile: "+origins, func(t *testing.T) {
			dirs := pgresttest.Directives(serverDirs(), "server_cors_allowed_origins "+origins)
			_, _, err := pgresttest.Serve(dirs, pgresttest.Options{LogFile: filepath.Join(t.TempDir(), "caddy.log")})
			if err == nil {
				_ = pgresttest.Stop()
				t.Fatal("started with null allowed")
			}
			if !strings.Contains(err.Error(), `server_cors_allowed_origins: "null"`) {
				t.Errorf("error %v, want one naming server_cors_allowed_origins and null", err)
			}
		})
	}
	t.Run("in the database", func(t *testing.T) {
		pgtest.Exec(t, db.SuperDSN, "alter role authenticator set pgrst.server_cors_allowed_origins = '"+listedOrigin+", null'")
		t.Cleanup(func() {
			pgtest.Exec(t, db.SuperDSN, "alter role authenticator reset pgrst.server_cors_allowed_origins")
		})
		_, _, err := pgresttest.Serve(serverDirs(), pgresttest.Options{LogFile: filepath.Join(t.TempDir(), "caddy.log")})
		if err == nil {
			_ = pgresttest.Stop()
			t.Fatal("started with null allowed")
		}
		if !strings.Contains(err.Error(), `server_cors_allowed_origins: "null"`) {
			t.Errorf("error %v, want one naming server_cors_allowed_origins and null", err)
		}
	})
}
