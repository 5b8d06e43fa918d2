package jwks

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// fetchFailed is what pgrest logs, as an error, for a key set it could not
// fetch.
const fetchFailed = "fetching the JWKS; the last keys fetched stay in use"

// A key set URL is https so that nobody on the way can swap the keys. A
// redirect to a plain http:// URL would undo that: whoever answers there
// (anyone between pgrest and the provider) chooses the keys, and so signs
// tokens for any role.
func TestJWKSRedirectOffHTTPSIsRefused(t *testing.T) {
	t.Run("a redirect to http:// fails the fetch", func(t *testing.T) {
		// The keys at the end of the redirect are the attacker's.
		attacker := newSigner(t, "attacker")
		publishAt(t, "/redirected-to-http/jwks.json", attacker.jwk())
		p := servePgrest(t, providerURL+"/to-http/redirected-to-http/jwks.json")
		p.expectStatus(t, "a token signed with keys served over http", attacker.token(t), http.StatusUnauthorized)
		if !logHas(t, p.log, fetchFailed, "http://") {
			t.Error("the refused redirect is not logged as a failed fetch naming the http:// URL")
		}
	})

	t.Run("a redirect to another https URL is followed", func(t *testing.T) {
		provider := newSigner(t, "provider")
		publishAt(t, "/redirected-to-https/jwks.json", provider.jwk())
		p := servePgrest(t, providerURL+"/to-https/redirected-to-https/jwks.json")
		p.expectStatus(t, "a token signed with keys served over https", provider.token(t), http.StatusOK)
	})
}

// A symmetric (kty oct) key verifies tokens and signs them alike: published
// at a URL anyone can read, it lets anyone sign a token for any role. Such
// keys are ignored, with a warning; the set's public keys still serve.
func TestJWKSSymmetricKeyFromURLIsIgnored(t *testing.T) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		t.Fatal(err)
	}
	oct := map[string]any{"kty": "oct", "kid": "shared", "alg": "HS256", "k": base64.RawURLEncoding.EncodeToString(secret)}
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims())
	tok.Header["kid"] = "shared"
	forged, err := tok.SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("beside a public key", func(t *testing.T) {
		provider := newSigner(t, "provider")
		publishAt(t, "/with-oct/jwks.json", provider.jwk(), oct)
		p := servePgrest(t, providerURL+"/with-oct/jwks.json")
		p.expectStatus(t, "a token signed with the published symmetric key", forged, http.StatusUnauthorized)
		p.expectStatus(t, "a token signed with the public key's private key", provider.token(t), http.StatusOK)
		if logCount(t, p.log, "warn", "ignoring symmetric keys published at the JWKS URL", "") == 0 {
			t.Error("the ignored symmetric key is not logged as a warning")
		}
	})

	t.Run("alone: the set has no usable key", func(t *testing.T) {
		publishAt(t, "/only-oct/jwks.json", oct)
		p := servePgrest(t, providerURL+"/only-oct/jwks.json")
		p.expectStatus(t, "a token signed with the published symmetric key", forged, http.StatusUnauthorized)
		if !logHas(t, p.log, fetchFailed, "no usable key") {
			t.Error("a set of symmetric keys only is not logged as a failed fetch with no usable key")
		}
	})
}
