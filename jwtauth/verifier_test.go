package jwtauth

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

func TestAuthenticate(t *testing.T) {
	base := Config{Secret: testSecret, AnonRole: "web_anon"}
	noAnon := Config{Secret: testSecret}
	withAud := Config{Secret: testSecret, AnonRole: "web_anon", Audience: "api"}
	unix := t0.Unix()
	author := hs256(t, jwt.MapClaims{"role": "author", "exp": unix + 3600})
	notJSON := rawToken(t, `{"alg":"HS256"}`, `not json`)

	tests := []struct {
		name   string
		cfg    Config
		header string
		want   outcome
	}{
		{"a request without a token runs as the anonymous role", base, "",
			outcome{role: "web_anon", claimsJSON: `{"role":"web_anon"}`}},
		{"a request without a token is refused when anonymous access is disabled", noAnon, "",
			fails("PGRST302", "Anonymous access is disabled")},
		{"a Basic authorization header counts as no token", base, "Basic dXNlcjpwdw==",
			ok("web_anon", false)},
		{"a Basic authorization header without an anonymous role is refused as anonymous", noAnon, "Basic dXNlcjpwdw==",
			fails("PGRST302", "Anonymous access is disabled")},
		{"a bearer header without a token is refused", base, "Bearer",
			fails("PGRST301", "Empty JWT is sent in Authorization header")},
		{"a bearer header with only spaces after it is refused", base, "Bearer    ",
			fails("PGRST301", "Empty JWT is sent in Authorization header")},
		{"a token is answered with PGRST300 when no secret is configured", Config{AnonRole: "web_anon"}, "Bearer " + author,
			fails("PGRST300", "Server lacks JWT secret")},
		{"a valid token runs as its role", base, "Bearer " + author,
			outcome{role: "author", authenticated: true,
				claimsJSON: `{"exp":` + jsonInt(unix+3600) + `,"role":"author"}`}},
		{"a valid token runs as its role without an anonymous role", noAnon, "Bearer " + author,
			ok("author", true)},
		{"the scheme is matched in lower case", base, "bearer " + author, ok("author", true)},
		{"the scheme is matched in upper case", base, "BEARER " + author, ok("author", true)},
		{"the scheme is matched in mixed case", base, "BeArEr " + author, ok("author", true)},
		{"several spaces may separate the scheme and the token", base, "Bearer   " + author, ok("author", true)},
		{"a token with two parts is refused before decoding", base, "Bearer abc.def",
			fails("PGRST301", "Expected 3 parts in JWT; got 2")},
		{"a token with four parts is refused before decoding", base, "Bearer " + author + ".xyz",
			fails("PGRST301", "Expected 3 parts in JWT; got 4")},
		{"a token with one part is refused", base, "Bearer garbage",
			fails("PGRST301", "Expected 3 parts in JWT; got 1")},
		{"an oversized token is refused before decoding", base, "Bearer " + strings.Repeat("a", maxTokenBytes) + ".b.c",
			fails("PGRST301", "JWT is longer than 16384 bytes")},
		{"a token with a wrong signature is refused", base, "Bearer " + author[:len(author)-4] + "AAAA",
			noKeyDecode},
		{"a token signed with another secret is refused", base,
			"Bearer " + sign(t, jwt.SigningMethodHS256, []byte(strings.Repeat("x", 32)), jwt.MapClaims{"role": "author"}, nil),
			noKeyDecode},
		{"a token whose header is not JSON is refused", base, "Bearer " + b64([]byte("nope")) + ".e30.sig",
			fails("PGRST301", "JWT cryptographic operation failed")},
		{"a token signed with alg none is refused", base,
			"Bearer " + sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, jwt.MapClaims{"role": "postgres"}, nil),
			unsecured},
		{"a token with an unknown alg is refused", base, "Bearer " + rawToken(t, `{"alg":"HS1024"}`, `{"role":"x"}`),
			fails("PGRST301", "JWT cryptographic operation failed")},
		{"a token without alg is refused", base, "Bearer " + rawToken(t, `{"typ":"JWT"}`, `{"role":"x"}`),
			fails("PGRST301", "JWT cryptographic operation failed")},
		{"a token whose payload is not an object is refused", base, "Bearer " + rawToken(t, `{"alg":"HS256"}`, `[1,2]`),
			fails("PGRST303", "Parsing claims failed")},
		{"a token whose payload is null is refused", base, "Bearer " + rawToken(t, `{"alg":"HS256"}`, `null`),
			fails("PGRST303", "Parsing claims failed")},
		{"a token whose payload has text after the object is refused", base, "Bearer " + rawToken(t, `{"alg":"HS256"}`, `{"role":"author"}x`),
			fails("PGRST303", "Parsing claims failed")},
		{"a token whose payload is two objects is refused", base, "Bearer " + rawToken(t, `{"alg":"HS256"}`, `{"role":"author"} {"role":"postgres"}`),
			fails("PGRST303", "Parsing claims failed")},
		{"a token whose payload ends in blanks is accepted", base, "Bearer " + rawToken(t, `{"alg":"HS256"}`, "{\"role\":\"author\"}\n "),
			ok("author", true)},
		{"a signed token whose payload is not JSON is refused as unparsable claims", base,
			"Bearer " + notJSON, fails("PGRST303", "Parsing claims failed")},
		{"a token whose payload is not JSON and whose signature is wrong is refused", base,
			"Bearer " + notJSON[:len(notJSON)-4] + "AAAA",
			noKeyDecode},
		{"a token whose header is not base64url is refused", base, "Bearer !!!.e30.sig",
			fails("PGRST301", "JWT cryptographic operation failed")},
		{"a token whose payload is not base64url is refused before any key is tried", base,
			"Bearer " + b64([]byte(`{"alg":"HS256"}`)) + ".!!!." + b64([]byte("sig")),
			fails("PGRST301", "JWT cryptographic operation failed")},
		{"a token whose signature is not base64url is refused before any key is tried", base,
			"Bearer " + author[:strings.LastIndexByte(author, '.')] + ".a=b",
			fails("PGRST301", "JWT cryptographic operation failed")},
		{"a token whose alg is not a string is refused", base, "Bearer " + rawToken(t, `{"alg":256}`, `{"role":"x"}`),
			fails("PGRST301", "JWT cryptographic operation failed")},

		{"a token that expired 20 seconds ago is accepted within the skew", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "exp": unix - 20}), ok("author", true)},
		{"a token that expired 40 seconds ago is refused", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "exp": unix - 40}),
			fails("PGRST303", "JWT expired")},
		{"a token valid from 20 seconds ahead is accepted within the skew", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "nbf": unix + 20}), ok("author", true)},
		{"a token valid from 40 seconds ahead is refused", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "nbf": unix + 40}),
			fails("PGRST303", "JWT not yet valid")},
		{"a token issued 40 seconds ahead is refused", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "iat": unix + 40}),
			fails("PGRST303", "JWT issued at future")},
		{"a token issued 20 seconds ahead is accepted within the skew", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "iat": unix + 20}), ok("author", true)},
		{"a fractional exp is accepted", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "exp": float64(unix) + 0.5}), ok("author", true)},
		{"a string exp is refused", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "exp": "tomorrow"}),
			fails("PGRST303", "The JWT 'exp' claim must be a number")},
		{"a string nbf is refused", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "nbf": "now"}),
			fails("PGRST303", "The JWT 'nbf' claim must be a number")},
		{"a boolean iat is refused", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "iat": true}),
			fails("PGRST303", "The JWT 'iat' claim must be a number")},
		{"a null exp counts as absent", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "exp": nil}), ok("author", true)},
		{"exp is checked before a malformed nbf", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "exp": unix - 100, "nbf": "x"}),
			fails("PGRST303", "JWT expired")},
		{"a malformed exp is reported before an early nbf", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "exp": "x", "nbf": unix + 100}),
			fails("PGRST303", "The JWT 'exp' claim must be a number")},
		{"nbf is checked before iat", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "nbf": unix + 100, "iat": unix + 100}),
			fails("PGRST303", "JWT not yet valid")},

		{"an aud string equal to jwt_aud is accepted", withAud,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "aud": "api"}), ok("author", true)},
		{"an aud array containing jwt_aud is accepted", withAud,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "aud": []any{"other", "api"}}), ok("author", true)},
		{"a token without aud is accepted when jwt_aud is set", withAud,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author"}), ok("author", true)},
		{"an aud string other than jwt_aud is refused", withAud,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "aud": "other"}),
			fails("PGRST303", "JWT not in audience")},
		{"an aud array without jwt_aud is refused", withAud,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "aud": []any{"a", "b"}}),
			fails("PGRST303", "JWT not in audience")},
		{"an empty aud array is accepted, as PostgREST accepts it", withAud,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "aud": []any{}}), ok("author", true)},
		{"a null aud counts as absent", withAud,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "aud": nil}), ok("author", true)},
		{"an object aud is refused", withAud,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "aud": map[string]any{"x": "api"}}),
			fails("PGRST303", "The JWT 'aud' claim must be a string or an array of strings")},
		{"an aud array holding an object is refused", withAud,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "aud": []any{map[string]any{"x": 1}, "api"}}),
			fails("PGRST303", "The JWT 'aud' claim must be a string or an array of strings")},
		{"a numeric aud is refused", withAud,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "aud": 7}),
			fails("PGRST303", "The JWT 'aud' claim must be a string or an array of strings")},
		{"an aud array holding a number is refused", withAud,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "aud": []any{"api", 7}}),
			fails("PGRST303", "The JWT 'aud' claim must be a string or an array of strings")},
		{"any string aud is accepted when jwt_aud is not set", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "aud": "anything"}), ok("author", true)},
		{"any array of strings is accepted as aud when jwt_aud is not set", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "aud": []any{"a", "b"}}), ok("author", true)},
		{"the type of aud is checked even when jwt_aud is not set", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "aud": 7}),
			fails("PGRST303", "The JWT 'aud' claim must be a string or an array of strings")},
		{"the time claims are checked before aud", withAud,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "author", "aud": "other", "exp": unix - 100}),
			fails("PGRST303", "JWT expired")},

		{"a token without a role claim runs as the anonymous role and keeps its claims", base,
			"Bearer " + hs256(t, jwt.MapClaims{"sub": "u1"}),
			outcome{role: "web_anon", claimsJSON: `{"role":"web_anon","sub":"u1"}`}},
		{"a token without a role claim is refused when anonymous access is disabled", noAnon,
			"Bearer " + hs256(t, jwt.MapClaims{"sub": "u1"}),
			fails("PGRST302", "Anonymous access is disabled")},
		{"a token whose role is the anonymous role is not authenticated", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": "web_anon"}), ok("web_anon", false)},
		{"a null role counts as absent", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": nil}), ok("web_anon", false)},
		{"a numeric role is refused", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": 42}),
			fails("PGRST303", "The JWT role claim must be a non-empty string")},
		{"an object role is refused", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": map[string]any{"name": "author"}}),
			fails("PGRST303", "The JWT role claim must be a non-empty string")},
		{"an empty role is refused", base,
			"Bearer " + hs256(t, jwt.MapClaims{"role": ""}),
			fails("PGRST303", "The JWT role claim must be a non-empty string")},
		{"the role is inserted into the claims JSON under the configured claim key",
			Config{Secret: testSecret, RoleClaimKey: ".app.r"},
			"Bearer " + hs256(t, jwt.MapClaims{"app": map[string]any{"r": "author"}, "role": "ignored"}),
			outcome{role: "author", authenticated: true, claimsJSON: `{"app":{"r":"author"},"role":"author"}`}},
		{"claims JSON keeps large integers and HTML characters as sent", base,
			"Bearer " + rawToken(t, `{"alg":"HS256"}`, `{"role":"author","id":12345678901234567890,"note":"<&>"}`),
			outcome{role: "author", authenticated: true,
				claimsJSON: `{"id":12345678901234567890,"note":"<&>","role":"author"}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newVerifier(t, tc.cfg)
			id, err := v.Authenticate(tc.header)
			expect(t, id, err, tc.want)
		})
	}
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestAuthenticateErrorStatuses(t *testing.T) {
	v := newVerifier(t, Config{Secret: testSecret})
	tests := []struct {
		name   string
		header string
		status int
		code   string
	}{
		{"a decoding failure is 401 with an invalid_token challenge", "Bearer a.b", http.StatusUnauthorized, "PGRST301"},
		{"a claims failure is 401 with an invalid_token challenge",
			"Bearer " + hs256(t, jwt.MapClaims{"exp": t0.Unix() - 100}), http.StatusUnauthorized, "PGRST303"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Authenticate(tc.header)
			if err == nil || err.Status != tc.status || err.Code != tc.code {
				t.Fatalf("got %+v, want %d %s", err, tc.status, tc.code)
			}
			if got := err.Headers.Get("WWW-Authenticate"); !strings.Contains(got, `error="invalid_token"`) {
				t.Fatalf("WWW-Authenticate = %q", got)
			}
		})
	}
	t.Run("a missing secret is a server error", func(t *testing.T) {
		v := newVerifier(t, Config{})
		if _, err := v.Authenticate("Bearer a.b.c"); err == nil || err.Status != http.StatusInternalServerError {
			t.Fatalf("got %+v, want 500", err)
		}
	})
}

func TestAuthenticateClaims(t *testing.T) {
	v := newVerifier(t, Config{Secret: testSecret, AnonRole: "web_anon"})

	t.Run("claims keep numbers as json.Number and are not given the role", func(t *testing.T) {
		tok := rawToken(t, `{"alg":"HS256"}`, `{"sub":"u1","n":12345678901234567890,"f":1.5}`)
		id, err := v.Authenticate("Bearer " + tok)
		if err != nil {
			t.Fatal(err)
		}
		if n, isNum := id.Claims["n"].(json.Number); !isNum || n.String() != "12345678901234567890" {
			t.Fatalf("n = %#v", id.Claims["n"])
		}
		if f, isNum := id.Claims["f"].(json.Number); !isNum || f.String() != "1.5" {
			t.Fatalf("f = %#v", id.Claims["f"])
		}
		if _, has := id.Claims["role"]; has {
			t.Fatalf("Claims got a role: %v", id.Claims)
		}
	})
	t.Run("anonymous requests have empty non-nil claims", func(t *testing.T) {
		id, err := v.Authenticate("")
		if err != nil {
			t.Fatal(err)
		}
		if id.Claims == nil || len(id.Claims) != 0 {
			t.Fatalf("Claims = %#v", id.Claims)
		}
	})
	t.Run("the anonymous role is JSON-encoded in the claims JSON", func(t *testing.T) {
		v := newVerifier(t, Config{Secret: testSecret, AnonRole: `we"ird\role`})
		id, err := v.Authenticate("")
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"role":"we\"ird\\role"}`; id.ClaimsJSON != want {
			t.Fatalf("ClaimsJSON = %s, want %s", id.ClaimsJSON, want)
		}
	})
	t.Run("the anonymous claims JSON is written as a token's is", func(t *testing.T) {
		v := newVerifier(t, Config{Secret: testSecret, AnonRole: "<&>"})
		anon, err := v.Authenticate("")
		if err != nil {
			t.Fatal(err)
		}
		tok, err := v.Authenticate("Bearer " + hs256(t, jwt.MapClaims{"sub": "u1"}))
		if err != nil {
			t.Fatal(err)
		}
		if anon.ClaimsJSON != `{"role":"<&>"}` || tok.ClaimsJSON != `{"role":"<&>","sub":"u1"}` {
			t.Fatalf("anonymous ClaimsJSON %s, token ClaimsJSON %s", anon.ClaimsJSON, tok.ClaimsJSON)
		}
	})
}

func TestAlgorithmComesFromTheKey(t *testing.T) {
	k := testKeys()
	rsaPub := rsaJWK(&k.rsaA.PublicKey, nil)
	der, err := x509.MarshalPKIXPublicKey(&k.rsaA.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	claims := jwt.MapClaims{"role": "postgres"}

	tests := []struct {
		name   string
		secret string
		token  string
		want   outcome
	}{
		{"an HS256 token signed with the RSA public key's PEM is refused", rsaPub,
			sign(t, jwt.SigningMethodHS256, pemBytes, claims, nil),
			noKeyFound},
		{"an HS256 token signed with the RSA public key's DER is refused", rsaPub,
			sign(t, jwt.SigningMethodHS256, der, claims, nil),
			noKeyFound},
		{"an alg none token is refused with an RSA key", rsaPub,
			sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims, nil),
			unsecured},
		{"an RS256 token is refused with an HMAC secret", testSecret,
			sign(t, jwt.SigningMethodRS256, k.rsaA, claims, nil),
			noKeyFound},
		{"an ES384 token is refused with a P-256 key", ecJWK(&k.p256.PublicKey, nil),
			sign(t, jwt.SigningMethodES384, k.p384, claims, nil),
			noKeyFound},
		{"a PS256 token is refused by an RSA key restricted to RS256", rsaJWK(&k.rsaA.PublicKey, map[string]any{"alg": "RS256"}),
			sign(t, jwt.SigningMethodPS256, k.rsaA, claims, nil),
			noKeyFound},
		{"an HS512 token is refused by an oct key restricted to HS256",
			octJWK([]byte(testSecret), map[string]any{"alg": "HS256"}),
			sign(t, jwt.SigningMethodHS512, []byte(testSecret), claims, nil),
			noKeyFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newVerifier(t, Config{Secret: tc.secret})
			id, err := v.Authenticate("Bearer " + tc.token)
			expect(t, id, err, tc.want)
		})
	}
}
