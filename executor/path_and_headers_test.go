package executor

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"testing"
)

// TestPathAndHeadersShareABufferSafely checks that request.path and
// request.headers made in one buffer are what they are made apart, that
// the path cannot grow into the headers, and that headers which need
// escaping (and so more room than the estimate) come out whole.
func TestPathAndHeadersShareABufferSafely(t *testing.T) {
	for _, h := range []http.Header{
		{},
		{"Authorization": {"Bearer x.y.z"}, "Accept": {"application/json"}},
		{"X-Escaped": {"\"quoted\"\n\\ \u2028 \x01"}, "X-Two": {"a", "b"}, "Cookie": {"a=b"}},
	} {
		for _, path := range []string{"", "/", "/items", "/rpc/f", "/caf\u00e9 items"} {
			r := &http.Request{URL: &url.URL{Path: path}, Host: "api.example.com", Header: h}
			p, hdr := pathAndHeaders(r)
			if string(p) != path || cap(p) != len(p) {
				t.Errorf("%q: path %q (cap %d)", path, p, cap(p))
			}
			// Compared as objects: the order of the names follows
			// the header map's.
			var got, want map[string]string
			if err := json.Unmarshal(hdr, &got); err != nil {
				t.Fatalf("%q: headers %s: %v", path, hdr, err)
			}
			if err := json.Unmarshal(headersJSON(r), &want); err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, want) || len(hdr) != len(headersJSON(r)) {
				t.Errorf("%q: headers %s, want %v", path, hdr, want)
			}
		}
	}
}
