package pgresttest

import (
	"encoding/json"
	"net/http"
	"testing"
)

// Login posts credentials to /rpc/login, the login pattern of
// demo/schema.sql (a SECURITY DEFINER function that checks the password
// and signs a token in SQL).
func (s *Server) Login(t testing.TB, email, pass string) *Response {
	t.Helper()
	body, err := json.Marshal(map[string]string{"email": email, "pass": pass})
	if err != nil {
		t.Fatal(err)
	}
	return s.Do(t, http.MethodPost, "/rpc/login", string(body))
}

// LoginToken is Login expecting 200 with exactly {"token": ...}, and
// returns the token.
func (s *Server) LoginToken(t testing.TB, email, pass string) string {
	t.Helper()
	res := s.Login(t, email, pass)
	if res.Status != http.StatusOK {
		t.Fatalf("login of %s: status %d, want 200; body %s", email, res.Status, res.Body)
	}
	var out map[string]any
	if err := json.Unmarshal(res.Body, &out); err != nil || len(out) != 1 {
		t.Fatalf("login of %s: body %s, want exactly {\"token\": ...}", email, res.Body)
	}
	tok, ok := out["token"].(string)
	if !ok || tok == "" {
		t.Fatalf("login of %s: body %s has no token", email, res.Body)
	}
	return tok
}
