package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// errClient bounds every request of the error tests, so a hang fails the
// test instead of the whole run; generous for a loaded machine.
var errClient = &http.Client{Timeout: time.Minute}

// errTry sends a request like do, returning failures instead of failing a
// test, so it can run in a goroutine.
func (s *server) errTry(method, path, body string, headers ...string) (*response, error) {
	res, err := s.Try(errClient, method, path, body, headers...)
	if err != nil {
		return nil, err
	}
	return &response{res}, nil
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
	return r.ExpectErrorFields(t, w.status, w.code, w.message, w.details, w.hint)
}

// errUserToken is a token for the authenticated role webuser.
func errUserToken(t testing.TB) []string {
	t.Helper()
	return bearer(token(t, jwt.MapClaims{"role": "webuser", "exp": time.Now().Add(time.Hour).Unix()}))
}

// errCount runs a counting query as the superuser.
func errCount(t testing.TB, query string, args ...any) int {
	t.Helper()
	return int(pgresttest.SQLInt(t, superDSN, query, args...))
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
