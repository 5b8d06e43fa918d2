package executor

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
)

// TestContentLocationOfIsContentLocation holds contentLocationOf to
// contentLocation's answer whatever the request's target, and checks that
// it takes the target itself, without allocating, when that is the
// address.
func TestContentLocationOfIsContentLocation(t *testing.T) {
	targets := []string{"/items", "/api/items", "/items/", "/itemsx", "/item", "/it%65ms"}
	for _, q := range contentLocationQueries {
		for _, path := range targets {
			for _, uri := range []string{path, path + "?" + q, "/items?" + q + "&", "/items?x" + q} {
				r := &http.Request{URL: &url.URL{Path: path, RawQuery: q}, RequestURI: uri}
				req := &apirequest.Request{Name: "items", RawQuery: q}
				if got, want := contentLocationOf(r, req), contentLocation(req); got != want {
					t.Errorf("path %q, target %q, query %q: %q, want %q", path, uri, q, got, want)
				}
			}
		}
	}
	for _, target := range []string{"/items", "/items?id=eq.42", "/items?limit=25&order=id"} {
		u, err := url.Parse(target)
		if err != nil {
			t.Fatal(err)
		}
		r := &http.Request{URL: u, RequestURI: target}
		req := &apirequest.Request{Name: "items", RawQuery: u.RawQuery}
		if got := contentLocationOf(r, req); got != target {
			t.Errorf("%s: %q", target, got)
		}
		if n := testing.AllocsPerRun(100, func() { contentLocationOf(r, req) }); n != 0 {
			t.Errorf("%s: %v allocations, want none", target, n)
		}
	}
}
