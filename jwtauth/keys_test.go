package jwtauth

import (
	"crypto/ed25519"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

func TestKeyForms(t *testing.T) {
	k := testKeys()
	claims := jwt.MapClaims{"role": "author"}
	// 0xfb 0xff encode as "+/" (standard) and "-_" (URL), so each
	// alphabet is really exercised.
	rawSecret := []byte("\xfb\xff\xfe\x00 a binary secret of 32 bytes")
	dir := t.TempDir()
	writeFile := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return "@" + p
	}
	set := jwks(
		rsaJWK(&k.rsaA.PublicKey, map[string]any{"kid": "a"}),
		ecJWK(&k.p256.PublicKey, map[string]any{"kid": "e"}),
		edJWK(k.ed.Public().(ed25519.PublicKey), map[string]any{"kid": "d"}),
	)

	tests := []struct {
		name     string
		secret   string
		isBase64 bool
		token    string
		want     outcome
	}{
		{"a passphrase verifies HS256", testSecret, false,
			sign(t, jwt.SigningMethodHS256, []byte(testSecret), claims, nil), ok("author", true)},
		{"a passphrase verifies HS384", testSecret, false,
			sign(t, jwt.SigningMethodHS384, []byte(testSecret), claims, nil), ok("author", true)},
		{"a passphrase verifies HS512", testSecret, false,
			sign(t, jwt.SigningMethodHS512, []byte(testSecret), claims, nil), ok("author", true)},
		{"a padded standard base64 secret is decoded", base64.StdEncoding.EncodeToString(rawSecret), true,
			sign(t, jwt.SigningMethodHS256, rawSecret, claims, nil), ok("author", true)},
		{"an unpadded URL base64 secret is decoded", base64.RawURLEncoding.EncodeToString(rawSecret), true,
			sign(t, jwt.SigningMethodHS256, rawSecret, claims, nil), ok("author", true)},
		{"a base64 secret is not used as text", base64.StdEncoding.EncodeToString(rawSecret), true,
			sign(t, jwt.SigningMethodHS256, []byte(base64.StdEncoding.EncodeToString(rawSecret)), claims, nil),
			noKeyDecode},
		{"an oct JWK verifies HS256", octJWK([]byte(testSecret), nil), false,
			sign(t, jwt.SigningMethodHS256, []byte(testSecret), claims, nil), ok("author", true)},
		{"an RSA JWK verifies RS256", rsaJWK(&k.rsaA.PublicKey, nil), false,
			sign(t, jwt.SigningMethodRS256, k.rsaA, claims, nil), ok("author", true)},
		{"an RSA JWK verifies PS384", rsaJWK(&k.rsaA.PublicKey, nil), false,
			sign(t, jwt.SigningMethodPS384, k.rsaA, claims, nil), ok("author", true)},
		{"an RSA JWK with alg RS512 verifies RS512", rsaJWK(&k.rsaA.PublicKey, map[string]any{"alg": "RS512"}), false,
			sign(t, jwt.SigningMethodRS512, k.rsaA, claims, nil), ok("author", true)},
		{"an RSA JWK refuses a token signed by another RSA key", rsaJWK(&k.rsaA.PublicKey, nil), false,
			sign(t, jwt.SigningMethodRS256, k.rsaB, claims, nil),
			noKeyDecode},
		{"a P-256 JWK verifies ES256", ecJWK(&k.p256.PublicKey, nil), false,
			sign(t, jwt.SigningMethodES256, k.p256, claims, nil), ok("author", true)},
		{"a P-384 JWK verifies ES384", ecJWK(&k.p384.PublicKey, nil), false,
			sign(t, jwt.SigningMethodES384, k.p384, claims, nil), ok("author", true)},
		{"a P-521 JWK verifies ES512", ecJWK(&k.p521.PublicKey, map[string]any{"alg": "ES512"}), false,
			sign(t, jwt.SigningMethodES512, k.p521, claims, nil), ok("author", true)},
		{"an Ed25519 JWK verifies EdDSA", edJWK(k.ed.Public().(ed25519.PublicKey), nil), false,
			sign(t, jwt.SigningMethodEdDSA, k.ed, claims, nil), ok("author", true)},
		{"an Ed25519 JWK with RFC 9864's alg Ed25519 verifies EdDSA",
			edJWK(k.ed.Public().(ed25519.PublicKey), map[string]any{"alg": "Ed25519"}), false,
			sign(t, jwt.SigningMethodEdDSA, k.ed, claims, nil), ok("author", true)},
		{"a JWK may carry padded members and surrounding spaces", `  {"kty":"oct","k":"` + base64.StdEncoding.EncodeToString([]byte(testSecret)) + `"} `, false,
			sign(t, jwt.SigningMethodHS256, []byte(testSecret), claims, nil), ok("author", true)},
		{"a JWKS verifies with its RSA member", set, false,
			sign(t, jwt.SigningMethodRS256, k.rsaA, claims, nil), ok("author", true)},
		{"a JWKS verifies with its EC member", set, false,
			sign(t, jwt.SigningMethodES256, k.p256, claims, nil), ok("author", true)},
		{"a JWKS verifies with its Ed25519 member", set, false,
			sign(t, jwt.SigningMethodEdDSA, k.ed, claims, nil), ok("author", true)},
		{"a JWKS skips members it cannot use", jwks(
			`{"kty":"RSA","use":"enc","n":"AQAB","e":"AQAB"}`,
			`{"kty":"OKP","crv":"X25519","x":"AAAA"}`,
			`{"kty":"oct","k":"c2hvcnQ"}`,
			`{"kty":"EC","crv":"P-256","x":"AQ","y":"Ag"}`,
			`{"kid":7}`,
			octJWK([]byte(testSecret), nil)), false,
			sign(t, jwt.SigningMethodHS256, []byte(testSecret), claims, nil), ok("author", true)},
		{"a file holding a passphrase and a newline is read", writeFile("secret", testSecret+"\n"), false,
			sign(t, jwt.SigningMethodHS256, []byte(testSecret), claims, nil), ok("author", true)},
		{"a file holding a base64 passphrase is decoded", writeFile("secret64", base64.StdEncoding.EncodeToString(rawSecret)+"\r\n"), true,
			sign(t, jwt.SigningMethodHS256, rawSecret, claims, nil), ok("author", true)},
		{"a file holding a JWK is read", writeFile("key.json", rsaJWK(&k.rsaA.PublicKey, nil)+"\n"), false,
			sign(t, jwt.SigningMethodRS256, k.rsaA, claims, nil), ok("author", true)},
		{"a file holding a multi-line JWKS is read", writeFile("keys.json", strings.ReplaceAll(set, ",", ",\n  ")+"\n"), false,
			sign(t, jwt.SigningMethodEdDSA, k.ed, claims, nil), ok("author", true)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newVerifier(t, Config{Secret: tc.secret, SecretIsBase64: tc.isBase64})
			id, err := v.Authenticate("Bearer " + tc.token)
			expect(t, id, err, tc.want)
		})
	}
}

func TestKidSelection(t *testing.T) {
	k := testKeys()
	claims := jwt.MapClaims{"role": "author"}
	withKids := jwks(
		rsaJWK(&k.rsaA.PublicKey, map[string]any{"kid": "a"}),
		rsaJWK(&k.rsaB.PublicKey, map[string]any{"kid": "b"}),
	)
	withoutKids := jwks(rsaJWK(&k.rsaA.PublicKey, nil), rsaJWK(&k.rsaB.PublicKey, nil))

	tests := []struct {
		name   string
		secret string
		token  string
		want   outcome
	}{
		{"a token whose kid names its key verifies", withKids,
			sign(t, jwt.SigningMethodRS256, k.rsaB, claims, map[string]any{"kid": "b"}), ok("author", true)},
		{"a token whose kid names another key is refused", withKids,
			sign(t, jwt.SigningMethodRS256, k.rsaB, claims, map[string]any{"kid": "a"}),
			noKeyDecode},
		{"a token whose kid names no key is refused", withKids,
			sign(t, jwt.SigningMethodRS256, k.rsaB, claims, map[string]any{"kid": "c"}),
			noKeyFound},
		{"a token without kid tries every key", withKids,
			sign(t, jwt.SigningMethodRS256, k.rsaB, claims, nil), ok("author", true)},
		{"a token with a kid tries every key when no key has a kid", withoutKids,
			sign(t, jwt.SigningMethodRS256, k.rsaB, claims, map[string]any{"kid": "zzz"}), ok("author", true)},
		{"a token with a kid verifies against a passphrase", testSecret,
			sign(t, jwt.SigningMethodHS256, []byte(testSecret), claims, map[string]any{"kid": "x"}), ok("author", true)},
		{"a non-string kid is ignored", withKids,
			sign(t, jwt.SigningMethodRS256, k.rsaB, claims, map[string]any{"kid": 5}), ok("author", true)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newVerifier(t, Config{Secret: tc.secret})
			id, err := v.Authenticate("Bearer " + tc.token)
			expect(t, id, err, tc.want)
		})
	}
}

func TestKeyUseFiltering(t *testing.T) {
	k := testKeys()
	claims := jwt.MapClaims{"role": "author"}
	other := rsaJWK(&k.rsaB.PublicKey, map[string]any{"kid": "b"})
	token := sign(t, jwt.SigningMethodRS256, k.rsaA, claims, map[string]any{"kid": "a"})

	tests := []struct {
		name  string
		extra map[string]any
		want  outcome
	}{
		{"a key for signatures is used", map[string]any{"use": "sig"}, ok("author", true)},
		{"a key for encryption is skipped", map[string]any{"use": "enc"},
			noKeyFound},
		{"a key whose key_ops include verify is used", map[string]any{"key_ops": []string{"sign", "verify"}}, ok("author", true)},
		{"a key whose key_ops lack verify is skipped", map[string]any{"key_ops": []string{"encrypt"}},
			noKeyFound},
		{"a key with empty key_ops is skipped", map[string]any{"key_ops": []string{}},
			noKeyFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.extra["kid"] = "a"
			v := newVerifier(t, Config{Secret: jwks(rsaJWK(&k.rsaA.PublicKey, tc.extra), other)})
			id, err := v.Authenticate("Bearer " + token)
			expect(t, id, err, tc.want)
		})
	}
}

func TestNewRefusesBadConfiguration(t *testing.T) {
	k := testKeys()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	smallRSA := `{"kty":"RSA","n":"` + b64(k.rsaA.N.Bytes()[:64]) + `","e":"AQAB"}`
	p256 := ecJWK(&k.p256.PublicKey, nil)

	tests := []struct {
		name     string
		cfg      Config
		contains string
	}{
		{"a passphrase shorter than 32 bytes is refused", Config{Secret: "short secret"},
			"the passphrase is 12 bytes, at least 32 are needed"},
		{"a base64 secret shorter than 32 bytes once decoded is refused",
			Config{Secret: base64.StdEncoding.EncodeToString([]byte(testSecret[:31])), SecretIsBase64: true},
			"the passphrase is 31 bytes"},
		{"a base64 secret that is not base64 is refused", Config{Secret: "not base64!!" + testSecret, SecretIsBase64: true},
			"decoding base64 jwt_secret"},
		{"a missing secret file is refused", Config{Secret: "@" + filepath.Join(dir, "nope")},
			"reading jwt_secret file"},
		{"an empty secret file is refused", Config{Secret: "@" + empty}, "the file is empty"},
		{"a JWK that is not JSON is refused", Config{Secret: `{"kty":`}, "parsing jwt_secret JWK"},
		{"a JWK without kty is refused", Config{Secret: `{"k":"abc"}`}, "kty is missing"},
		{"a JWK of an unknown kty is refused", Config{Secret: `{"kty":"XYZ"}`}, `kty "XYZ" is not supported`},
		{"a JWK for encryption is refused", Config{Secret: octJWK([]byte(testSecret), map[string]any{"use": "enc"})},
			`use is "enc"`},
		{"a JWK whose key_ops lack verify is refused", Config{Secret: octJWK([]byte(testSecret), map[string]any{"key_ops": []string{"sign"}})},
			`lacks "verify"`},
		{"a JWK whose alg does not fit its kty is refused", Config{Secret: rsaJWK(&k.rsaA.PublicKey, map[string]any{"alg": "ES256"})},
			`alg "ES256" does not fit kty RSA`},
		{"a JWK with alg none is refused", Config{Secret: octJWK([]byte(testSecret), map[string]any{"alg": "none"})},
			`alg "none"`},
		{"an EC JWK whose alg does not fit its curve is refused", Config{Secret: ecJWK(&k.p256.PublicKey, map[string]any{"alg": "ES384"})},
			`alg "ES384" does not fit kty EC`},
		{"an EC JWK whose point is off the curve is refused",
			Config{Secret: strings.Replace(p256, `"y":"`, `"y":"AA`, 1)}, "kty EC"},
		{"an oct JWK shorter than 32 bytes is refused", Config{Secret: octJWK([]byte("short"), nil)},
			"k is 5 bytes"},
		{"an RSA JWK with a small modulus is refused", Config{Secret: smallRSA}, "n is 512 bits"},
		{"an RSA JWK with an even exponent is refused",
			Config{Secret: strings.Replace(rsaJWK(&k.rsaA.PublicKey, nil), `"e":"AQAB"`, `"e":"AQAA"`, 1)},
			"e is not a valid RSA exponent"},
		{"an oct JWK whose k is not base64 is refused", Config{Secret: `{"kty":"oct","k":"!!"}`},
			"k is not base64url"},
		{"an EC JWK whose coordinate is longer than its curve is refused",
			Config{Secret: strings.Replace(p256, `"x":"`, `"x":"AAAA`, 1)}, "x or y is longer than 32 bytes"},
		{"an Ed25519 JWK whose x is not 32 bytes is refused", Config{Secret: `{"kty":"OKP","crv":"Ed25519","x":"AAAA"}`},
			"x is 3 bytes, want 32"},
		{"an Ed448 JWK is refused", Config{Secret: `{"kty":"OKP","crv":"Ed448","x":"AAAA"}`}, `crv "Ed448"`},
		{"a JWKS whose keys is not an array is refused", Config{Secret: `{"keys":{}}`}, `"keys" must be an array`},
		{"a JWKS without usable keys is refused",
			Config{Secret: jwks(octJWK([]byte(testSecret), map[string]any{"use": "enc"}), `{"kty":"RSA"}`)},
			"no usable key among 2"},
		{"an empty JWKS is refused", Config{Secret: `{"keys":[]}`}, "no usable key among 0"},
		{"a role claim key without a leading dot is refused", Config{RoleClaimKey: "role"}, "parsing jwt_role_claim_key"},
		{"a bad role claim key is refused", Config{RoleClaimKey: ".roles[x]"}, "parsing jwt_role_claim_key"},
		{"a negative cache size is refused", Config{CacheMaxEntries: -1}, "jwt_cache_max_entries"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if err == nil {
				t.Fatalf("New succeeded, want an error containing %q", tc.contains)
			}
			if !strings.Contains(err.Error(), tc.contains) {
				t.Fatalf("error %q does not contain %q", err, tc.contains)
			}
		})
	}
}

func TestNewAcceptsAnEmptySecret(t *testing.T) {
	v, err := New(Config{AnonRole: "web_anon"})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if id, aerr := v.Authenticate(""); aerr != nil || id.Role != "web_anon" {
		t.Fatalf("got %+v %v", id, aerr)
	}
}
