package jwks

import (
	"bufio"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// jwksPath is where the provider publishes its key set (jwksURL).
const jwksPath = "/.well-known/jwks.json"

// signer is a signing key of the provider's.
type signer struct {
	kid string
	key *rsa.PrivateKey
}

func newSigner(t *testing.T, kid string) signer {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return signer{kid: kid, key: k}
}

// claims are those of every token of the tests: a user of the fixture.
func claims() jwt.MapClaims {
	return jwt.MapClaims{"role": fixtures.UserRole, "sub": "user-1"}
}

func (s signer) token(t *testing.T) string {
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims())
	tok.Header["kid"] = s.kid
	signed, err := tok.SignedString(s.key)
	if err != nil {
		t.Error(err)
	}
	return signed
}

func (s signer) jwk() map[string]any {
	b64 := base64.RawURLEncoding.EncodeToString
	return map[string]any{
		"kty": "RSA", "kid": s.kid, "alg": "RS256", "use": "sig",
		"n": b64(s.key.PublicKey.N.Bytes()),
		"e": b64(big.NewInt(int64(s.key.PublicKey.E)).Bytes()),
	}
}

// publish makes the provider serve these keys at jwksURL from now on.
func publish(t *testing.T, keys ...signer) {
	t.Helper()
	jwks := make([]map[string]any, len(keys))
	for i, k := range keys {
		jwks[i] = k.jwk()
	}
	publishAt(t, jwksPath, jwks...)
}

// publishAt makes the provider serve a key set of these JWKs at path (of
// its URL, and of its plain http site) from now on.
func publishAt(t *testing.T, path string, jwks ...map[string]any) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"keys": jwks})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(providerDir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	// Written aside and renamed: the provider never serves half a file.
	if err := os.WriteFile(file+".new", body, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(file+".new", file); err != nil {
		t.Fatal(err)
	}
}

// failAt makes the provider answer 500 for path from now on (asking it
// once to make sure, which fetchesOf counts).
func failAt(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(providerDir, filepath.FromSlash(path))+".down", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(providerURL + path)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusInternalServerError {
		t.Fatalf("the provider answers %s for %s, want 500", res.Status, path)
	}
}

// fetchesOf counts the requests for path in the provider's access log.
func fetchesOf(t *testing.T, path string) int {
	t.Helper()
	n := 0
	for _, l := range logLines(t, providerLog) {
		if req, _ := l["request"].(map[string]any); req != nil && req["uri"] == path {
			n++
		}
	}
	return n
}

// pgrest is a pgrest server verifying tokens with a key set URL.
type pgrest struct {
	*pgresttest.Server
	// log is its Caddy's log file.
	log    string
	client *http.Client
}

// servePgrest serves pgrest with jwt_secret url until the test ends. Its
// first fetch of the key set is over when it returns.
func servePgrest(t *testing.T, url string) *pgrest {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "caddy.log")
	s, _, err := pgresttest.Serve(map[string]string{
		"db_uri":       pgresttest.Quote(db.DSNFor(fixtures.Authenticator, fixtures.AuthenticatorPassword)),
		"db_schemas":   "api",
		"db_anon_role": fixtures.AnonRole,
		"jwt_secret":   url,
	}, pgresttest.Options{LogFile: logPath})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pgresttest.Stop() })
	return &pgrest{Server: s, log: logPath, client: &http.Client{Timeout: 30 * time.Second}}
}

// call reads a row with the token and returns the status and body.
func (p *pgrest) call(token string) (int, string) {
	req, _ := http.NewRequest(http.MethodGet, p.URL+"/clients?select=id&id=eq.1", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := p.client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// expectStatus fails the test unless a request with the token gets status.
func (p *pgrest) expectStatus(t *testing.T, what, token string, status int) {
	t.Helper()
	if code, body := p.call(token); code != status {
		t.Errorf("%s: %d %s, want %d", what, code, body, status)
	}
}

// logLines are the JSON lines of a log file.
func logLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l map[string]any
		if json.Unmarshal(sc.Bytes(), &l) == nil {
			lines = append(lines, l)
		}
	}
	return lines
}

// logCount counts the lines of a level and message whose error field
// holds detail ("" for any).
func logCount(t *testing.T, path, level, msg, detail string) int {
	t.Helper()
	n := 0
	for _, l := range logLines(t, path) {
		errText, _ := l["error"].(string)
		if l["msg"] == msg && l["level"] == level && strings.Contains(errText, detail) {
			n++
		}
	}
	return n
}

// logHas says an error line with msg holds detail.
func logHas(t *testing.T, path, msg, detail string) bool {
	t.Helper()
	return logCount(t, path, "error", msg, detail) > 0
}
