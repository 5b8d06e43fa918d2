package e2e

import (
	"net/http"
	"slices"
	"testing"
)

// TestHTTPHeaderVary mirrors PostgREST v16's HttpHeaderSpec: every
// successful response says what its answer varies on besides the URL
// (Vary: Accept, Prefer, Range), unless response.headers, here set by
// db_pre_request, names a Vary of its own, which then replaces it. An
// error response carries none, as PostgREST's do not.
func TestHTTPHeaderVary(t *testing.T) {
	vary := func(t *testing.T, res *response, want ...string) {
		t.Helper()
		if got := res.Header.Values("Vary"); !slices.Equal(got, want) {
			t.Errorf("%s: Vary %q, want %q", res.Method, got, want)
		}
	}
	t.Run("Test HTTP Default Header", func(t *testing.T) {
		s := startServer(t)
		t.Run("Test default Vary header value matches default one", func(t *testing.T) {
			res := s.get(t, "/hdr_projects")
			res.ExpectStatus(t, http.StatusOK)
			vary(t, res, "Accept, Prefer, Range")
		})
		for _, c := range []struct {
			name, method, path, body string
			status                   int
		}{
			{"a HEAD read", http.MethodHead, "/hdr_projects", "", http.StatusOK},
			{"an OPTIONS answer", http.MethodOptions, "/hdr_projects", "", http.StatusOK},
			{"the API description", http.MethodGet, "/", "", http.StatusOK},
		} {
			t.Run(c.name+" says it too", func(t *testing.T) {
				res := s.do(t, c.method, c.path, c.body)
				res.ExpectStatus(t, c.status)
				vary(t, res, "Accept, Prefer, Range")
			})
		}
		t.Run("an error says none", func(t *testing.T) {
			res := s.get(t, "/hdr_projects?id=eq.not-a-number")
			res.expectError(t, http.StatusBadRequest, "22P02")
			vary(t, res)
		})
	})
	t.Run("Test HTTP Custom Header", func(t *testing.T) {
		s := startServer(t, "db_pre_request api.custom_vary_hdr")
		t.Run("Test default Vary header value is overridden in pre-request database function", func(t *testing.T) {
			res := s.get(t, "/hdr_projects")
			res.ExpectStatus(t, http.StatusOK)
			vary(t, res, "X-Test-Accept")
		})
	})
}
