package e2e

import (
	"crypto/elliptic"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Every token error over HTTP, word for word as PostgREST v16 writes it:
// status, code, message, details, hint and the WWW-Authenticate challenge.
// PostgREST's PGRST301 details are its JOSE library's own words, passed on.

// authMessage is one expected token error.
type authMessage struct {
	status                 int
	code, message, details string
}

// authExpectWhole checks the whole error body and the challenge.
func authExpectWhole(t *testing.T, res *response, want authMessage) {
	t.Helper()
	e := res.expectError(t, want.status, want.code)
	if e["message"] != want.message {
		t.Errorf("message %q, want %q", e["message"], want.message)
	}
	var details any
	if want.details != "" {
		details = want.details
	}
	if e["details"] != details {
		t.Errorf("details %#v, want %#v", e["details"], details)
	}
	if e["hint"] != nil {
		t.Errorf("hint %#v, want null", e["hint"])
	}
	challenge := `Bearer error="invalid_token", error_description="` + want.message + `"`
	if want.code == "PGRST302" {
		challenge = "Bearer"
	}
	if want.code == "PGRST300" {
		challenge = ""
	}
	if got := res.Header.Get("WWW-Authenticate"); got != challenge {
		t.Errorf("WWW-Authenticate %q, want %q", got, challenge)
	}
}

var (
	msgCrypto      = authMessage{401, "PGRST301", "JWT cryptographic operation failed", ""}
	msgNoKeyFound  = authMessage{401, "PGRST301", "No suitable key or wrong key type", "No suitable key was found to decode the JWT"}
	msgNoKeyDecode = authMessage{401, "PGRST301", "No suitable key or wrong key type", "None of the keys was able to decode the JWT"}
	msgUnsecured   = authMessage{401, "PGRST301", "Wrong or unsupported encoding algorithm", "JWT is unsecured but expected 'alg' was not 'none'"}
	msgAudType     = authMessage{401, "PGRST303", "The JWT 'aud' claim must be a string or an array of strings", ""}
	msgNotInAud    = authMessage{401, "PGRST303", "JWT not in audience", ""}
)

func TestAuthMessagesAreWordForWordPostgREST(t *testing.T) {
	s := startServer(t)
	valid := token(t, jwt.MapClaims{"role": "auth_alice"})
	dot := strings.LastIndexByte(valid, '.')
	for _, tc := range []struct {
		name, header string
		want         authMessage
	}{
		{"an empty token", "Bearer ", authMessage{401, "PGRST301", "Empty JWT is sent in Authorization header", ""}},
		{"a token of two parts", "Bearer " + valid[:dot], authMessage{401, "PGRST301", "Expected 3 parts in JWT; got 2", ""}},
		{"a token of five parts", "Bearer " + valid + ".a.b", authMessage{401, "PGRST301", "Expected 3 parts in JWT; got 5", ""}},
		{"random characters in three parts (PostgREST's own example)", "Bearer quifquirndsjagnrgniur.fonvoienqhhdj.iuqvnvhojah", msgCrypto},
		{"a header naming an algorithm no JOSE library knows", "Bearer " + authHS256Raw(`{"alg":"XS256"}`, `{"role":"auth_alice"}`), msgCrypto},
		{"a signature that is not base64url", "Bearer " + valid[:dot] + ".@@@@", msgCrypto},
		{"alg none", "Bearer " + authUnsigned(`{"role":"auth_alice"}`), msgUnsecured},
		{"a token signed with a wrong secret (PostgREST's own example)", "Bearer " + authSign(t, jwt.SigningMethodHS256,
			[]byte("wrong secret, but long enough to sign with 0123456789"), "", jwt.MapClaims{}), msgNoKeyDecode},
		{"an RS256 token where only an HMAC secret is configured", "Bearer " + authSign(t, jwt.SigningMethodRS256,
			authRSAKey(t), "", jwt.MapClaims{"role": "auth_alice"}), msgNoKeyFound},
		{"an ES256 token where only an HMAC secret is configured", "Bearer " + authSign(t, jwt.SigningMethodES256,
			authECKey(t, elliptic.P256()), "", jwt.MapClaims{"role": "auth_alice"}), msgNoKeyFound},
		{"an expired token", "Bearer " + token(t, jwt.MapClaims{"role": "auth_alice", "exp": authNow(-35 * time.Second)}),
			authMessage{401, "PGRST303", "JWT expired", ""}},
		{"a token not valid yet", "Bearer " + token(t, jwt.MapClaims{"role": "auth_alice", "nbf": authNow(35 * time.Second)}),
			authMessage{401, "PGRST303", "JWT not yet valid", ""}},
		{"a token issued in the future", "Bearer " + token(t, jwt.MapClaims{"role": "auth_alice", "iat": authNow(35 * time.Second)}),
			authMessage{401, "PGRST303", "JWT issued at future", ""}},
		{"an exp that is not a number", "Bearer " + token(t, jwt.MapClaims{"role": "auth_alice", "exp": "soon"}),
			authMessage{401, "PGRST303", "The JWT 'exp' claim must be a number", ""}},
		{"an nbf that is not a number", "Bearer " + token(t, jwt.MapClaims{"role": "auth_alice", "nbf": "now"}),
			authMessage{401, "PGRST303", "The JWT 'nbf' claim must be a number", ""}},
		{"an iat that is not a number", "Bearer " + token(t, jwt.MapClaims{"role": "auth_alice", "iat": "invalid"}),
			authMessage{401, "PGRST303", "The JWT 'iat' claim must be a number", ""}},
		{"a signed payload that is not a JSON object", "Bearer " + authHS256Raw(`{"alg":"HS256"}`, `["auth_alice"]`),
			authMessage{401, "PGRST303", "Parsing claims failed", ""}},
		// PostgREST type-checks aud whether or not jwt_aud is set.
		{"an aud that is an object, without jwt_aud", "Bearer " + token(t, jwt.MapClaims{"role": "auth_alice", "aud": map[string]any{"invalid": "value"}}), msgAudType},
		{"an aud array holding an object, without jwt_aud", "Bearer " + token(t, jwt.MapClaims{"role": "auth_alice", "aud": []any{map[string]any{"invalid": "value"}, "test"}}), msgAudType},
	} {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			authExpectWhole(t, s.get(t, "/rpc/auth_whoami", "Authorization", tc.header), tc.want)
		})
	}

	t.Run("a request without a token when anonymous access is off", func(t *testing.T) {
		s := startServer(t, "-db_anon_role")
		authExpectWhole(t, s.get(t, "/rpc/auth_whoami"), authMessage{401, "PGRST302", "Anonymous access is disabled", ""})
	})
	t.Run("a token when no secret is configured", func(t *testing.T) {
		s := startServer(t, "-jwt_secret")
		authExpectWhole(t, s.get(t, "/rpc/auth_whoami", bearer(valid)...), authMessage{500, "PGRST300", "Server lacks JWT secret", ""})
	})
}

func TestAuthAudienceAsAStringOrAnArrayOfStrings(t *testing.T) {
	s := startServer(t, "jwt_aud pgrest-api")
	for _, tc := range []struct {
		name string
		aud  any
	}{
		{"a string equal to jwt_aud", "pgrest-api"},
		{"an array holding jwt_aud", []any{"other", "pgrest-api"}},
		{"an array of jwt_aud alone", []any{"pgrest-api"}},
		{"an empty array, which PostgREST takes as valid for every audience", []any{}},
		{"null, which counts as no aud", nil},
	} {
		t.Run(tc.name+" is accepted", func(t *testing.T) {
			tok := token(t, jwt.MapClaims{"role": "auth_alice", "aud": tc.aud})
			if got := authWho(t, s, bearer(tok)...); got != "auth_alice" {
				t.Errorf("ran as %q, want auth_alice", got)
			}
		})
	}
	for _, tc := range []struct {
		name string
		aud  any
		want authMessage
	}{
		{"another string", "pgrest-api-2", msgNotInAud},
		{"a string that only contains jwt_aud", "pgrest-api pgrest-other", msgNotInAud},
		{"an array without jwt_aud", []any{"a", "b"}, msgNotInAud},
		{"a number", 42, msgAudType},
		{"a boolean", true, msgAudType},
		{"an object", map[string]any{"aud": "pgrest-api"}, msgAudType},
		{"an array holding a number", []any{"pgrest-api", 1}, msgAudType},
		{"an array holding null", []any{"pgrest-api", nil}, msgAudType},
		{"an array holding an array", []any{[]any{"pgrest-api"}}, msgAudType},
	} {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			tok := token(t, jwt.MapClaims{"role": "auth_alice", "aud": tc.aud})
			authExpectWhole(t, s.get(t, "/rpc/auth_whoami", bearer(tok)...), tc.want)
		})
	}
}
