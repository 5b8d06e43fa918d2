package read

import (
	"net/http"
	"strings"
	"testing"
)

// specRequest is one request of PostgREST's spec (test/spec/Feature of
// PostgREST v16.2) and the answer the spec expects of it: the status, the
// body as JSON ("" for none) and the headers it matches ("" for absent).
type specRequest struct {
	name string
	// method is GET when empty.
	method string
	path   string
	// header alternates name, value.
	header []string
	// reqBody is the request's body.
	reqBody string
	status  int
	body    string
	// raw compares body byte for byte: the bodies of media type
	// handlers are not JSON.
	raw bool
	// anyBody checks only the status and match: the spec's matcher
	// names a status alone.
	anyBody bool
	match   map[string]string
	// contains holds headers that must hold the value, as the spec's
	// matchHeaderValuePresent.
	contains map[string]string
}

// runSpecRequests sends each case to s as a subtest.
func runSpecRequests(t *testing.T, s *server, cases []specRequest) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method := c.method
			if method == "" {
				method = http.MethodGet
			}
			status := c.status
			if status == 0 {
				status = http.StatusOK
			}
			res := s.Do(t, method, c.path, c.reqBody, c.header...)
			for n, want := range c.contains {
				if got := res.Header.Get(n); !strings.Contains(got, want) {
					t.Errorf("header %s: %q, want it to hold %q", n, got, want)
				}
			}
			if c.anyBody {
				expectRaw(t, res, status, string(res.Body), c.match)
				return
			}
			if c.raw {
				expectRaw(t, res, status, c.body, c.match)
				return
			}
			res.Expect(t, status, c.body, c.match)
		})
	}
}

// expectRaw expects the status, the body as bytes and the headers ("" for
// absent).
func expectRaw(t *testing.T, res *response, status int, body string, match map[string]string) {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status %d, want %d; body %q", res.Status, status, res.Body)
	}
	if string(res.Body) != body {
		t.Errorf("body\n%q\nwant\n%q", res.Body, body)
	}
	for n, want := range match {
		if got, present := res.Header.Get(n), len(res.Header.Values(n)) > 0; got != want || (want == "" && present) {
			t.Errorf("header %s: %q, want %q", n, got, want)
		}
	}
}

// specJSONType is the Content-Type of the spec's matchContentTypeJson.
const specJSONType = "application/json; charset=utf-8"

// specJSON is the match of the spec's matchContentTypeJson alone.
var specJSON = map[string]string{"Content-Type": specJSONType}
