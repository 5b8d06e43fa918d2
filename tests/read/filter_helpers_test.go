package read

import (
	"net/http"
	"slices"
	"testing"
)

// idsCase is a request whose answer is known by the ids of its rows.
type idsCase struct {
	name string
	path string
	want []int
}

// runIDsCases checks each case's ids as a set: filters say which rows,
// not in which order.
func runIDsCases(t *testing.T, s *server, cases []idsCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ids(t, s.Get(t, c.path))
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("GET %s\n got ids %v\nwant ids %v", c.path, got, c.want)
			}
		})
	}
}

// runOrderedIDsCases checks each case's ids in order.
func runOrderedIDsCases(t *testing.T, s *server, cases []idsCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ids(t, s.Get(t, c.path)); !slices.Equal(got, c.want) {
				t.Errorf("GET %s\n got ids %v\nwant ids %v", c.path, got, c.want)
			}
		})
	}
}

// failure is a request the server refuses with an exact error body.
type failure struct {
	name    string
	path    string
	status  int
	code    string
	message string
	details any // string, or nil for JSON null
	hint    any // string, or nil for JSON null
}

// runFailures checks status, code, message, details and hint of each case.
func runFailures(t *testing.T, s *server, cases []failure) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkFailure(t, s.Get(t, c.path), c)
		})
	}
}

func checkFailure(t *testing.T, res *response, c failure) {
	t.Helper()
	res.ExpectErrorFields(t, c.status, c.code, c.message, c.details, c.hint)
}

// parseError is a PGRST100 failure: a 400 with no hint.
func parseError(name, path, message, details string) failure {
	return failure{name: name, path: path, status: http.StatusBadRequest, code: "PGRST100", message: message, details: details}
}

// expectHeader fails t unless the response's header name is want.
func expectHeader(t testing.TB, res *response, name, want string) {
	t.Helper()
	if got := res.Header.Get(name); got != want {
		t.Errorf("%s %q, want %q", name, got, want)
	}
}
