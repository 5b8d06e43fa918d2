package ops

import (
	"net/http"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestAccessLogSaysWhoDidWhat(t *testing.T) {
	s := startReadySite(t)
	tok := token(t, jwt.MapClaims{"role": "webuser", "sub": "user-42"})
	noSub := token(t, jwt.MapClaims{"role": "webuser"})
	// X-Probe tells the requests apart in the log, which records the
	// request's headers.
	get(t, http.MethodGet, s.API+"/clients?id=eq.1", "X-Probe", "with-sub", "Authorization", "Bearer "+tok)
	get(t, http.MethodGet, s.API+"/clients?id=eq.1", "X-Probe", "without-sub", "Authorization", "Bearer "+noSub)
	get(t, http.MethodGet, s.API+"/clients?id=eq.1", "X-Probe", "anonymous")
	get(t, http.MethodGet, s.API+"/clients?id=eq.oops", "X-Probe", "database-error")
	get(t, http.MethodGet, s.API+"/clients", "X-Probe", "bad-token", "Authorization", "Bearer not.a.token")

	want := map[string]map[string]any{
		"with-sub":       {"status": float64(200), "user_id": "user-42", "pgrest_role": "webuser", "pgrest_action": "read", "pgrest_schema": "api"},
		"without-sub":    {"user_id": "webuser", "pgrest_role": "webuser"},
		"anonymous":      {"user_id": "web_anon", "pgrest_role": "web_anon"},
		"database-error": {"pgrest_code": "22P02", "pgrest_sqlstate": "22P02", "status": float64(400)},
		"bad-token":      {"user_id": "", "pgrest_code": "PGRST301", "pgrest_action": "read", "status": float64(401)},
	}
	var lines map[string]map[string]any
	eventually(t, 30*time.Second, "the access log lacks some requests", func() bool {
		lines = map[string]map[string]any{}
		for _, l := range logLines(t, s.AccessLog, "handled request") {
			req, _ := l["request"].(map[string]any)
			headers, _ := req["headers"].(map[string]any)
			if probe, ok := headers["X-Probe"].([]any); ok && len(probe) == 1 {
				lines[probe[0].(string)] = l
			}
		}
		return len(lines) == len(want)
	})
	for probe, fields := range want {
		for k, v := range fields {
			if got := lines[probe][k]; got != v && !(v == "" && got == nil) {
				t.Errorf("%s: %s = %v, want %v (fields: %v)", probe, k, got, v, keys(lines[probe]))
			}
		}
	}
	if _, ok := lines["with-sub"]["pgrest_sqlstate"]; ok {
		t.Error("a successful request has pgrest_sqlstate")
	}
}
