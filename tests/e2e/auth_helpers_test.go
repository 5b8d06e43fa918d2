package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// Helpers of the authentication tests. Names start with auth so they stay
// out of the way of the rest of the package.

// authWho is the role a request ran as, read from SQL (current_user).
func authWho(t testing.TB, s *server, headers ...string) string {
	t.Helper()
	v, ok := authGetJSON(t, s, "/rpc/auth_whoami", headers...).(string)
	if !ok {
		t.Fatalf("auth_whoami did not return a string")
	}
	return v
}

// authSetting is current_setting(name, true) as SQL saw it during the
// request: a string, or nil when the setting is absent.
func authSetting(t testing.TB, s *server, name string, headers ...string) any {
	t.Helper()
	return authGetJSON(t, s, "/rpc/auth_setting?name="+url.QueryEscape(name), headers...)
}

// authSettingJSON is a setting holding JSON (request.headers,
// request.cookies, request.jwt.claims), decoded.
func authSettingJSON(t testing.TB, s *server, name string, headers ...string) map[string]any {
	t.Helper()
	v := authSetting(t, s, name, headers...)
	text, ok := v.(string)
	if !ok {
		t.Fatalf("setting %s is %v, want JSON text", name, v)
	}
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("setting %s is not a JSON object: %v\n%s", name, err, text)
	}
	return m
}

// authGetJSON sends GET path, requires 200 and decodes the body.
func authGetJSON(t testing.TB, s *server, path string, headers ...string) any {
	t.Helper()
	res := s.get(t, path, headers...)
	if res.Status != 200 {
		t.Fatalf("GET %s: status %d, want 200; body %s", path, res.Status, res.Body)
	}
	return res.JSON(t)
}

// authIDs reads a JSON array of rows and returns their id columns, sorted.
func authIDs(t testing.TB, res *response) []int {
	t.Helper()
	if res.Status != 200 {
		t.Fatalf("status %d, want 200; body %s", res.Status, res.Body)
	}
	var rows []map[string]any
	if err := json.Unmarshal(res.Body, &rows); err != nil {
		t.Fatalf("body is not an array of rows: %v\n%s", err, res.Body)
	}
	ids := make([]int, 0, len(rows))
	for _, r := range rows {
		id, ok := r["id"].(float64)
		if !ok {
			t.Fatalf("row without a numeric id: %v", r)
		}
		ids = append(ids, int(id))
	}
	sort.Ints(ids)
	return ids
}

// authExpectIDs checks the ids of the rows a read returned.
func authExpectIDs(t testing.TB, res *response, want ...int) {
	t.Helper()
	if want == nil {
		want = []int{}
	}
	if got := authIDs(t, res); !slices.Equal(got, want) {
		t.Errorf("row ids %v, want %v; body %s", got, want, res.Body)
	}
}

// authExpectTokenError checks a token error: status, code, message and the
// RFC 6750 challenge PostgREST sends with it.
func authExpectTokenError(t testing.TB, res *response, status int, code, message string) {
	t.Helper()
	e := res.expectError(t, status, code)
	if e["message"] != message {
		t.Errorf("message %q, want %q", e["message"], message)
	}
	want := `Bearer error="invalid_token", error_description="` + message + `"`
	if got := res.Header.Get("WWW-Authenticate"); got != want {
		t.Errorf("WWW-Authenticate %q, want %q", got, want)
	}
}

// authExpectBearerChallenge checks a 401 that asks for a token without
// blaming one: WWW-Authenticate is exactly "Bearer".
func authExpectBearerChallenge(t testing.TB, res *response) {
	t.Helper()
	if got := res.Header.Values("WWW-Authenticate"); !slices.Equal(got, []string{"Bearer"}) {
		t.Errorf("WWW-Authenticate %q, want [Bearer]", got)
	}
}

// authNoChallenge checks that a response does not ask for credentials.
func authNoChallenge(t testing.TB, res *response) {
	t.Helper()
	if got := res.Header.Values("WWW-Authenticate"); len(got) != 0 {
		t.Errorf("WWW-Authenticate %q, want none", got)
	}
}

// authExpectMessage checks an error's message.
func authExpectMessage(t testing.TB, e map[string]any, message string) {
	t.Helper()
	if e["message"] != message {
		t.Errorf("message %q, want %q", e["message"], message)
	}
}

// authScheme is an Authorization header with a given scheme word.
func authScheme(scheme, tok string) []string {
	return []string{"Authorization", scheme + " " + tok}
}

// authSign signs claims with method and key; kid is set when not empty.
func authSign(t testing.TB, method jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// authHS256Raw signs an arbitrary header and payload (JSON text, not
// necessarily objects) with HS256 and jwtSecret, for tokens golang-jwt
// will not make.
func authHS256Raw(header, payload string) string {
	enc := base64.RawURLEncoding
	input := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(payload))
	mac := hmac.New(sha256.New, []byte(jwtSecret))
	mac.Write([]byte(input))
	return input + "." + enc.EncodeToString(mac.Sum(nil))
}

// authUnsigned is a token with alg none: header.payload and an empty
// signature.
func authUnsigned(claims string) string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc.EncodeToString([]byte(claims)) + "."
}

// authRSAKey makes a fresh RSA key.
func authRSAKey(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// authRSAJWK is the public JWK of k with the members the contract names
// (alg, e, key_ops, kty, n), plus kid when not empty.
func authRSAJWK(k *rsa.PrivateKey, kid string) map[string]any {
	enc := base64.RawURLEncoding
	m := map[string]any{
		"alg":     "RS256",
		"e":       enc.EncodeToString(big.NewInt(int64(k.PublicKey.E)).Bytes()),
		"key_ops": []string{"verify"},
		"kty":     "RSA",
		"n":       enc.EncodeToString(k.PublicKey.N.Bytes()),
	}
	if kid != "" {
		m["kid"] = kid
	}
	return m
}

// authECKey makes a fresh EC key on curve.
func authECKey(t testing.TB, curve elliptic.Curve) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(curve, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// authECJWK is the public ES256 JWK of k.
func authECJWK(t testing.TB, k *ecdsa.PrivateKey) map[string]any {
	t.Helper()
	point, err := k.PublicKey.Bytes() // 0x04 || x || y
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding
	return map[string]any{
		"kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig",
		"x": enc.EncodeToString(point[1:33]), "y": enc.EncodeToString(point[33:]),
	}
}

// authJSONText is v as one-line JSON.
func authJSONText(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// authInline is a jwt_secret line holding JSON inline: backquoted, the
// Caddyfile way of writing a token with quotes and spaces.
func authInline(json string) string { return "jwt_secret `" + json + "`" }

// authFile is a jwt_secret line naming a file that holds content.
func authFile(t testing.TB, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "jwt-key.json")
	if err := os.WriteFile(p, []byte(content+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return "jwt_secret @" + p
}

// authClosedPortURI is an authenticator URI on a port where nothing
// listens.
func authClosedPortURI(t testing.TB) string {
	return fmt.Sprintf("postgres://authenticator:%s@127.0.0.1:%d/pgrest_e2e?connect_timeout=2",
		authenticatorPassword, freePort(t))
}

// authLoadError adapts and loads a config as startServer does and returns
// why Caddy refused it. A config that loads fails the test.
func authLoadError(t testing.TB, lines ...string) error {
	t.Helper()
	s, _, err := pgresttest.Serve(pgresttest.Directives(defaultDirectives(), lines...), pgresttest.Options{})
	if err != nil {
		return err
	}
	_ = pgresttest.Stop()
	t.Fatalf("Caddy loaded a config it should refuse:\n%s", s.Caddyfile)
	return nil
}

// authConnect connects to the test database as the superuser.
func authConnect(t testing.TB) *pgx.Conn {
	t.Helper()
	return pgtest.Connect(t, superDSN)
}

// authClaimsOf decodes a token's payload without verifying it, to look at
// what a token made elsewhere (in the database) holds.
func authClaimsOf(t testing.TB, tok string) jwt.MapClaims {
	t.Helper()
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(tok, claims); err != nil {
		t.Fatalf("token %q does not parse: %v", tok, err)
	}
	return claims
}

// authVerifyHS256 verifies tok with jwtSecret as a standard JWT library
// does, so a token made in SQL is shown to be an ordinary HS256 token.
func authVerifyHS256(t testing.TB, tok string) {
	t.Helper()
	_, err := jwt.Parse(tok, func(*jwt.Token) (any, error) { return []byte(jwtSecret), nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired())
	if err != nil {
		t.Fatalf("token %q does not verify with jwtSecret: %v", tok, err)
	}
}

// authNow is the current time as a NumericDate claim value, offset by d.
func authNow(d time.Duration) int64 { return time.Now().Add(d).Unix() }
