package read

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

// bodyCase is a GET whose 200 answer must equal want, compared as JSON.
type bodyCase struct {
	name string
	path string
	// header alternates name, value.
	header []string
	want   string
}

// errorCase is a GET that must fail with status and exactly the error
// body want (code, message, details, hint), compared as JSON.
type errorCase struct {
	name   string
	path   string
	header []string
	status int
	want   string
}

// runBodyCases runs each case as a subtest against s.
func runBodyCases(t *testing.T, s *server, cases []bodyCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := s.Get(t, c.path, c.header...)
			res.ExpectStatus(t, http.StatusOK)
			expectJSON(t, res.Body, c.want)
		})
	}
}

// runErrorCases runs each case as a subtest against s.
func runErrorCases(t *testing.T, s *server, cases []errorCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := s.Get(t, c.path, c.header...)
			expectErrorBody(t, res, c.status, c.want)
		})
	}
}

// expectErrorBody checks the status, the contract's error headers and that
// the body equals want as JSON.
func expectErrorBody(t testing.TB, res *response, status int, want string) {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expected error %s: %v", want, err)
	}
	code, _ := w["code"].(string)
	res.ExpectError(t, status, code)
	expectJSON(t, res.Body, want)
}

// expectJSON fails t unless got and want hold equal JSON values.
func expectJSON(t testing.TB, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expected JSON: %v\n%s", err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("body differs\n got: %s\nwant: %s", compactJSON(g), compactJSON(w))
	}
}

func compactJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
