package pgresttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// Response is what a request got back, read whole.
type Response struct {
	// Method is the request's method.
	Method string
	Status int
	Header http.Header
	Body   []byte
}

// Request is a request to s; a body that is not empty is sent as
// application/json.
func (s *Server) Request(method, path, body string) (*http.Request, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		return nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// Send sends req with client (http.DefaultClient when nil) and reads the
// whole response.
func Send(client *http.Client, req *http.Request) (*Response, error) {
	if client == nil {
		client = http.DefaultClient
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	return &Response{Method: req.Method, Status: res.StatusCode, Header: res.Header, Body: b}, nil
}

// Try sends a request to s with client (http.DefaultClient when nil),
// returning failures instead of failing a test, so it can run in a
// goroutine. headers alternate name, value: the first of a name replaces
// the header Request set (Content-Type), a name given again adds a value,
// so a header named twice is sent twice (PostgREST's specs send two
// Prefer headers).
func (s *Server) Try(client *http.Client, method, path, body string, headers ...string) (*Response, error) {
	req, err := s.Request(method, path, body)
	if err != nil {
		return nil, err
	}
	named := map[string]bool{}
	for i := 0; i+1 < len(headers); i += 2 {
		if named[http.CanonicalHeaderKey(headers[i])] {
			req.Header.Add(headers[i], headers[i+1])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
		named[http.CanonicalHeaderKey(headers[i])] = true
	}
	return Send(client, req)
}

// Do is Try with http.DefaultClient, failing t on a transport error.
func (s *Server) Do(t testing.TB, method, path, body string, headers ...string) *Response {
	t.Helper()
	res, err := s.Try(nil, method, path, body, headers...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Get is Do for GET.
func (s *Server) Get(t testing.TB, path string, headers ...string) *Response {
	t.Helper()
	return s.Do(t, http.MethodGet, path, "", headers...)
}

// Head is Do for HEAD.
func (s *Server) Head(t testing.TB, path string, headers ...string) *Response {
	t.Helper()
	return s.Do(t, http.MethodHead, path, "", headers...)
}

// JSON decodes the body, failing t when it is not JSON.
func (r *Response) JSON(t testing.TB) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("body is not JSON (status %d): %v\n%s", r.Status, err, r.Body)
	}
	return v
}

// ExpectStatus fails t unless the response has status.
func (r *Response) ExpectStatus(t testing.TB, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; body %s", r.Status, status, r.Body)
	}
}

// Error decodes an error body and checks it has exactly the contract's
// four fields: code, message, details and hint.
func (r *Response) Error(t testing.TB) map[string]any {
	t.Helper()
	m, ok := r.JSON(t).(map[string]any)
	if !ok {
		t.Fatalf("error body is not an object: %s", r.Body)
	}
	for _, k := range []string{"code", "message", "details", "hint"} {
		if _, ok := m[k]; !ok {
			t.Fatalf("error body lacks %q: %s", k, r.Body)
		}
	}
	if len(m) != 4 {
		t.Fatalf("error body has fields beyond the contract's four: %s", r.Body)
	}
	return m
}

// ExpectError checks an error of the contract: status, Proxy-Status
// "pgrest; error=<code>", Content-Type "application/json; charset=utf-8"
// and an error body (see Error) with code, which it returns. A response
// to HEAD must have no body, and ExpectError returns nil.
func (r *Response) ExpectError(t testing.TB, status int, code string) map[string]any {
	t.Helper()
	r.ExpectStatus(t, status)
	if ps := r.Header.Get("Proxy-Status"); ps != "pgrest; error="+code {
		t.Errorf("Proxy-Status %q, want %q", ps, "pgrest; error="+code)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if r.Method == http.MethodHead {
		if len(r.Body) != 0 {
			t.Errorf("a HEAD response has a body: %s", r.Body)
		}
		return nil
	}
	e := r.Error(t)
	if e["code"] != code {
		t.Fatalf("code %v, want %s; body %s", e["code"], code, r.Body)
	}
	return e
}

// ExpectErrorFields is ExpectError checking the rest of the error body
// too: message, details and hint, where a nil details or hint expects JSON
// null. A response to HEAD has no body to check: it fails t.
func (r *Response) ExpectErrorFields(t testing.TB, status int, code, message string, details, hint any) map[string]any {
	t.Helper()
	e := r.ExpectError(t, status, code)
	if e == nil {
		t.Fatalf("the error response has no body")
	}
	if e["message"] != message {
		t.Errorf("message\n got %#v\nwant %#v", e["message"], message)
	}
	if e["details"] != details {
		t.Errorf("details\n got %#v\nwant %#v", e["details"], details)
	}
	if e["hint"] != hint {
		t.Errorf("hint\n got %#v\nwant %#v", e["hint"], hint)
	}
	return e
}

// Expect checks a whole response: status; the body, compared with want as
// JSON values (spacing and key order aside), or none when want is ""; a
// body's Content-Type "application/json; charset=utf-8" (unless header
// names Content-Type); an error body's four fields and Proxy-Status; and
// the headers in header, where "" expects the header absent.
func (r *Response) Expect(t testing.TB, status int, want string, header map[string]string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; body %s", r.Status, status, r.Body)
	}
	if want == "" {
		if len(r.Body) != 0 {
			t.Errorf("body %s, want none", r.Body)
		}
	} else {
		var w any
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatalf("the test's want is not JSON: %v\n%s", err, want)
		}
		got := r.JSON(t)
		if !reflect.DeepEqual(got, w) {
			t.Errorf("body\n%s\nwant\n%s", r.Body, want)
		}
		if _, ok := header["Content-Type"]; !ok {
			if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q, want application/json; charset=utf-8", ct)
			}
		}
		if status >= 400 {
			e := r.Error(t)
			if ps := r.Header.Get("Proxy-Status"); ps != fmt.Sprintf("pgrest; error=%v", e["code"]) {
				t.Errorf("Proxy-Status %q, want pgrest; error=%v", ps, e["code"])
			}
		}
	}
	names := make([]string, 0, len(header))
	for n := range header {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		got, present := r.Header.Get(n), len(r.Header.Values(n)) > 0
		switch {
		case header[n] == "" && present:
			t.Errorf("header %s: %q, want none", n, got)
		case header[n] != "" && got != header[n]:
			t.Errorf("header %s: %q, want %q", n, got, header[n])
		}
	}
}

// SignHS256 signs claims with HS256 and secret.
func SignHS256(secret string, claims jwt.MapClaims) (string, error) {
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(secret))
}

// Token is SignHS256 failing t on error.
func Token(t testing.TB, secret string, claims jwt.MapClaims) string {
	t.Helper()
	s, err := SignHS256(secret, claims)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Bearer is the Authorization header pair, for Do's headers, of a token.
func Bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }
