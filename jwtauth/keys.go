package jwtauth

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/golang-jwt/jwt/v5"
)

// minSecretBytes is the shortest HMAC key accepted, as a passphrase or as an
// oct JWK. HS256 needs a key at least as long as its 256-bit output to have
// its full strength (RFC 7518 §3.2); PostgREST's documentation asks for 32
// characters too, so refusing shorter keys at start-up turns a silent
// weakness into a configuration error.
const minSecretBytes = 32

// Key families, named by the JWK kty that holds them.
const (
	familyHMAC    = "oct"
	familyRSA     = "RSA"
	familyEC      = "EC"
	familyEd25519 = "OKP"
)

// algFamily maps every algorithm pgrest verifies to the key family that can
// verify it. An alg missing here ("none", RSA-OAEP, ...) is never accepted.
var algFamily = map[string]string{
	"HS256": familyHMAC, "HS384": familyHMAC, "HS512": familyHMAC,
	"RS256": familyRSA, "RS384": familyRSA, "RS512": familyRSA,
	"PS256": familyRSA, "PS384": familyRSA, "PS512": familyRSA,
	"ES256": familyEC, "ES384": familyEC, "ES512": familyEC,
	"EdDSA": familyEd25519,
}

var (
	hmacAlgs = []string{"HS256", "HS384", "HS512"}
	rsaAlgs  = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}
)

// verifyKey is one usable verification key and the algorithms it accepts.
// The algorithms come from the key (its type, curve and JWK alg), never from
// the token, so a token cannot pick how it is checked.
type verifyKey struct {
	kid    string
	family string
	algs   []string
	// key is what golang-jwt verifies with: []byte for HMAC,
	// *rsa.PublicKey, *ecdsa.PublicKey or ed25519.PublicKey.
	key any
	// parser is built once with this key's algorithms as its valid methods:
	// even if selection let a token through to the wrong key, golang-jwt
	// would still refuse any other alg.
	parser  *jwt.Parser
	keyFunc jwt.Keyfunc
}

// newVerifyKey finishes a key: its parser and key function are built here
// so the hot path allocates neither.
func newVerifyKey(kid, family string, algs []string, key any) *verifyKey {
	k := &verifyKey{kid: kid, family: family, algs: algs, key: key}
	// Claims validation is ours (claims.go): PostgREST's order, skew and
	// messages differ from golang-jwt's validator.
	k.parser = jwt.NewParser(jwt.WithValidMethods(algs), jwt.WithoutClaimsValidation())
	k.keyFunc = func(*jwt.Token) (any, error) { return k.key, nil }
	return k
}

// allows reports whether the key verifies tokens signed with alg.
func (k *verifyKey) allows(alg string) bool {
	return slices.Contains(k.algs, alg)
}

// verify checks the token's signature with this key and returns the raw
// payload JSON, decoded later only for the key that verified it.
func (k *verifyKey) verify(token string) ([]byte, error) {
	var c rawClaims
	_, err := k.parser.ParseWithClaims(token, &c, k.keyFunc)
	if err == nil {
		return c.raw, nil
	}
	// golang-jwt decodes the payload as JSON before it checks the
	// signature, so a signed payload that is not JSON would pass for a bad
	// signature (PGRST301). PostgREST checks the signature first and then
	// fails to parse the claims (PGRST303): check it here and hand the
	// payload on for decodeClaims to refuse.
	if errors.Is(err, jwt.ErrTokenMalformed) {
		if raw, ok := k.verifyOpaque(token); ok {
			return raw, nil
		}
	}
	return nil, err
}

// verifyOpaque verifies the signature without reading the payload and
// returns the payload's bytes.
func (k *verifyKey) verifyOpaque(token string) ([]byte, bool) {
	first, last := strings.IndexByte(token, '.'), strings.LastIndexByte(token, '.')
	if first < 0 || first == last {
		return nil, false
	}
	alg, _, ok := decodeHeader(token[:first])
	if !ok || !k.allows(alg) {
		return nil, false
	}
	method := jwt.GetSigningMethod(alg)
	sig, err := base64.RawURLEncoding.DecodeString(token[last+1:])
	if method == nil || err != nil || method.Verify(token[:last], sig, k.key) != nil {
		return nil, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(token[first+1 : last])
	if err != nil {
		return nil, false
	}
	return payload, true
}

// loadKeys turns jwt_secret into verification keys. An empty secret gives no
// keys: New succeeds and every token is answered with PGRST300, as PostgREST
// does.
func loadKeys(secret string, isBase64 bool) ([]*verifyKey, error) {
	if secret == "" {
		return nil, nil
	}
	if path, ok := strings.CutPrefix(secret, "@"); ok {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading jwt_secret file: %w", err)
		}
		// Editors and `echo` leave a trailing newline that is not part of
		// the key.
		secret = strings.TrimRightFunc(string(b), unicode.IsSpace)
		if secret == "" {
			return nil, fmt.Errorf("reading jwt_secret file %s: the file is empty", path)
		}
	}
	if strings.HasPrefix(strings.TrimSpace(secret), "{") {
		// jwt_secret_is_base64 describes a passphrase; a JWK's members are
		// already base64url, so the flag does not apply to JSON.
		return parseJWKJSON([]byte(secret))
	}
	return passphraseKey(secret, isBase64)
}

// passphraseKey makes the HMAC key of a plain (or base64) passphrase. It
// accepts every HS algorithm, like PostgREST's HS256 passphrase JWK which
// jose-jwt also uses for HS384 and HS512.
func passphraseKey(secret string, isBase64 bool) ([]*verifyKey, error) {
	key := []byte(secret)
	if isBase64 {
		b, err := decodeBase64(secret)
		if err != nil {
			return nil, fmt.Errorf("decoding base64 jwt_secret: %w", err)
		}
		key = b
	}
	if len(key) < minSecretBytes {
		return nil, fmt.Errorf("checking jwt_secret: the passphrase is %d bytes, at least %d are needed", len(key), minSecretBytes)
	}
	return []*verifyKey{newVerifyKey("", familyHMAC, hmacAlgs, key)}, nil
}

// decodeBase64 accepts both alphabets, padded or not: secrets come from
// openssl (standard, padded) as often as from JWT tooling (URL, unpadded).
func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	if b, err := base64.RawStdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawURLEncoding.DecodeString(s)
}
