package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
)

// errClient bounds every request of the error tests, so a hang fails the
// test instead of the whole run.
var errClient = &http.Client{Timeout: 15 * time.Second}

// errTry sends a request like do, returning failures instead of failing a
// test, so it can run in a goroutine.
func (s *server) errTry(method, path, body string, headers ...string) (*response, error) {
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
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := errClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	return &response{Status: res.StatusCode, Header: res.Header, Body: b}, nil
}

// errDo is errTry failing t on a transport error or timeout.
func (s *server) errDo(t testing.TB, method, path, body string, headers ...string) *response {
	t.Helper()
	res, err := s.errTry(method, path, body, headers...)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return res
}

// errWant is an expected error response; a nil details or hint expects
// JSON null.
type errWant struct {
	status  int
	code    string
	message string
	details any
	hint    any
}

// expectErrorBody checks the whole error: status, headers and all four
// fields.
func (r *response) expectErrorBody(t testing.TB, w errWant) map[string]any {
	t.Helper()
	e := r.expectError(t, w.status, w.code)
	if e == nil {
		t.Fatalf("error response has no body")
	}
	if e["message"] != w.message {
		t.Errorf("message %q, want %q", e["message"], w.message)
	}
	if e["details"] != w.details {
		t.Errorf("details %#v, want %#v", e["details"], w.details)
	}
	if e["hint"] != w.hint {
		t.Errorf("hint %#v, want %#v", e["hint"], w.hint)
	}
	return e
}

// errUserToken is a token for the authenticated role webuser.
func errUserToken(t testing.TB) []string {
	t.Helper()
	return bearer(token(t, jwt.MapClaims{"role": "webuser", "exp": time.Now().Add(time.Hour).Unix()}))
}

// errCount runs a counting query as the superuser.
func errCount(t testing.TB, query string, args ...any) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, superDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// errLogged counts the api.err_log rows holding note.
func errLogged(t testing.TB, note string) int {
	t.Helper()
	return errCount(t, "select count(*) from api.err_log where note = $1", note)
}

// errNote makes a note unique to the running test, so its rows are told
// apart from every other test's.
func errNote(t testing.TB) string {
	return fmt.Sprintf("%s@%d", t.Name(), time.Now().UnixNano())
}

// errJSON quotes s as a JSON string.
func errJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
