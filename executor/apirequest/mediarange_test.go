package apirequest

import (
	"strings"
	"testing"
)

// TestParseAcceptOrder checks the order media ranges are tried in, as
// PostgREST's parser sorts them: quality, then parameters less wildcards,
// then as written; q itself is no parameter.
func TestParseAcceptOrder(t *testing.T) {
	for _, c := range []struct{ accept, want string }{
		{"text/html, image/png", "text/html image/png"},
		{"*/*, image/png", "image/png */*"},
		{"text/*, text/plain", "text/plain text/*"},
		{"a/b;q=0.5, c/d", "c/d a/b"},
		{"a/b, c/d;q=0.9, e/f;q=0.9;x=1", "a/b e/f c/d"},
		{"text/html,application/xhtml+xml,application/xml;q=0.9,image/png,*/*;q=0.8",
			"text/html application/xhtml+xml image/png application/xml */*"},
		{"APPLICATION/JSON", "application/json"},
	} {
		ranges := ParseAccept(c.accept)
		got := make([]string, len(ranges))
		for i, r := range ranges {
			got[i] = r.Type
			if _, ok := r.Params["q"]; ok {
				t.Errorf("%q: q kept among the parameters of %s", c.accept, r.Type)
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%q: order %v, want %s", c.accept, got, c.want)
		}
	}
}
