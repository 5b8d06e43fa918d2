package jwtauth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// t0 is the tests' "now".
var t0 = time.Unix(1_700_000_000, 0)

// testSecret is exactly minSecretBytes long.
const testSecret = "reallyreallyreallyreallyverysafe"

func at(t time.Time) func() time.Time { return func() time.Time { return t } }

// testKeys are generated once: RSA generation is slow.
var testKeys = sync.OnceValue(func() (k struct {
	rsaA, rsaB *rsa.PrivateKey
	p256, p384 *ecdsa.PrivateKey
	p521       *ecdsa.PrivateKey
	ed         ed25519.PrivateKey
}) {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	var err error
	k.rsaA, err = rsa.GenerateKey(rand.Reader, 2048)
	must(err)
	k.rsaB, err = rsa.GenerateKey(rand.Reader, 2048)
	must(err)
	k.p256, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(err)
	k.p384, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	must(err)
	k.p521, err = ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	must(err)
	_, k.ed, err = ed25519.GenerateKey(rand.Reader)
	must(err)
	return k
})

// sign makes a token; header entries (kid, or an alg override) are added to
// the JOSE header.
func sign(t testing.TB, method jwt.SigningMethod, key any, claims jwt.MapClaims, header map[string]any) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	for k, v := range header {
		tok.Header[k] = v
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("signing token: %v", err)
	}
	return s
}

// hs256 signs claims with testSecret.
func hs256(t testing.TB, claims jwt.MapClaims) string {
	t.Helper()
	return sign(t, jwt.SigningMethodHS256, []byte(testSecret), claims, nil)
}

// rawToken assembles a token from a header and payload JSON, signed with
// HS256 and testSecret, for payloads golang-jwt would not produce.
func rawToken(t testing.TB, header, payload string) string {
	t.Helper()
	signing := b64([]byte(header)) + "." + b64([]byte(payload))
	sig, err := jwt.SigningMethodHS256.Sign(signing, []byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + b64(sig)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// jwkJSON renders members plus extra as a one-line JWK.
func jwkJSON(members, extra map[string]any) string {
	m := map[string]any{}
	for k, v := range members {
		m[k] = v
	}
	for k, v := range extra {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func rsaJWK(pub *rsa.PublicKey, extra map[string]any) string {
	return jwkJSON(map[string]any{
		"kty": "RSA",
		"n":   b64(pub.N.Bytes()),
		"e":   b64(big.NewInt(int64(pub.E)).Bytes()),
	}, extra)
}

func ecJWK(pub *ecdsa.PublicKey, extra map[string]any) string {
	point, err := pub.Bytes()
	if err != nil {
		panic(err)
	}
	size := (len(point) - 1) / 2
	return jwkJSON(map[string]any{
		"kty": "EC",
		"crv": pub.Curve.Params().Name,
		"x":   b64(point[1 : 1+size]),
		"y":   b64(point[1+size:]),
	}, extra)
}

func edJWK(pub ed25519.PublicKey, extra map[string]any) string {
	return jwkJSON(map[string]any{"kty": "OKP", "crv": "Ed25519", "x": b64(pub)}, extra)
}

func octJWK(k []byte, extra map[string]any) string {
	return jwkJSON(map[string]any{"kty": "oct", "k": b64(k)}, extra)
}

func jwks(members ...string) string {
	raw := make([]json.RawMessage, len(members))
	for i, m := range members {
		raw[i] = json.RawMessage(m)
	}
	b, err := json.Marshal(map[string]any{"keys": raw})
	if err != nil {
		panic(err)
	}
	return string(b)
}

func newVerifier(t testing.TB, cfg Config) *Verifier {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = at(t0)
	}
	v, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return v
}

// outcome is what a test expects of Authenticate: an error code and message,
// or (code "") a role, the Authenticated flag and, when set, ClaimsJSON.
type outcome struct {
	code, message string
	// details is the error's details; "" wants null.
	details       string
	role          string
	authenticated bool
	claimsJSON    string
}

func ok(role string, authenticated bool) outcome {
	return outcome{role: role, authenticated: authenticated}
}

func fails(code, message string) outcome { return outcome{code: code, message: message} }

// failsWith is fails with details.
func failsWith(code, message, details string) outcome {
	return outcome{code: code, message: message, details: details}
}

// The PGRST301 refusals of a token that parsed, as PostgREST words them.
var (
	noKeyFound  = failsWith("PGRST301", "No suitable key or wrong key type", "No suitable key was found to decode the JWT")
	noKeyDecode = failsWith("PGRST301", "No suitable key or wrong key type", "None of the keys was able to decode the JWT")
	unsecured   = failsWith("PGRST301", "Wrong or unsupported encoding algorithm", "JWT is unsecured but expected 'alg' was not 'none'")
)

func expect(t *testing.T, id Identity, err *apierr.Error, want outcome) {
	t.Helper()
	if want.code != "" {
		if err == nil {
			t.Fatalf("got identity %+v, want error %s %q", id, want.code, want.message)
		}
		if err.Code != want.code || err.Message != want.message {
			t.Fatalf("got error %s %q, want %s %q", err.Code, err.Message, want.code, want.message)
		}
		var wantDetails any
		if want.details != "" {
			wantDetails = want.details
		}
		if err.Details != wantDetails {
			t.Fatalf("got details %#v, want %#v", err.Details, wantDetails)
		}
		return
	}
	if err != nil {
		t.Fatalf("got error %s %q, want role %q", err.Code, err.Message, want.role)
	}
	if id.Role != want.role || id.Authenticated != want.authenticated {
		t.Fatalf("got role %q authenticated %v, want %q %v", id.Role, id.Authenticated, want.role, want.authenticated)
	}
	if want.claimsJSON != "" && id.ClaimsJSON != want.claimsJSON {
		t.Fatalf("got ClaimsJSON %s, want %s", id.ClaimsJSON, want.claimsJSON)
	}
}
