package read

import (
	"net/http"
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
	status int
	body   string
	match  map[string]string
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
			s.Do(t, method, c.path, "", c.header...).Expect(t, status, c.body, c.match)
		})
	}
}
