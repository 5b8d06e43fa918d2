package jwtauth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// minRSABits is the smallest RSA modulus accepted. Go's crypto/rsa refuses
// to verify with smaller keys, so such a key would fail every request;
// refusing it in New says why, once.
const minRSABits = 1024

// jwk holds the members of a JSON Web Key (RFC 7517, 7518, 8037) that
// verification uses. Private members (d, p, q, ...) are ignored.
type jwk struct {
	Kty    string   `json:"kty"`
	Alg    string   `json:"alg"`
	Kid    string   `json:"kid"`
	Use    string   `json:"use"`
	KeyOps []string `json:"key_ops"`
	Crv    string   `json:"crv"`
	N      string   `json:"n"`
	E      string   `json:"e"`
	X      string   `json:"x"`
	Y      string   `json:"y"`
	K      string   `json:"k"`
}

// parseJWKJSON reads a JWK or a JWKS ({"keys": [...]}). A JWKS member that
// cannot be used is skipped, so one exotic key (an encryption key, an Ed448
// key) does not take down a set published by an identity provider; a set
// with no usable key is an error.
func parseJWKJSON(data []byte) ([]*verifyKey, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("parsing jwt_secret JWK: %w", err)
	}
	rawKeys, isSet := probe["keys"]
	if !isSet {
		k, err := parseJWK(data)
		if err != nil {
			return nil, fmt.Errorf("parsing jwt_secret JWK: %w", err)
		}
		return []*verifyKey{k}, nil
	}
	var members []json.RawMessage
	if err := json.Unmarshal(rawKeys, &members); err != nil {
		return nil, fmt.Errorf("parsing jwt_secret JWKS: \"keys\" must be an array: %w", err)
	}
	var keys []*verifyKey
	var skipped []string
	for i, m := range members {
		k, err := parseJWK(m)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("key %d: %v", i, err))
			continue
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("parsing jwt_secret JWKS: no usable key among %d (%s)", len(members), strings.Join(skipped, "; "))
	}
	return keys, nil
}

// parseJWK turns one JWK into a verification key, or says why it cannot
// verify signatures.
func parseJWK(data []byte) (*verifyKey, error) {
	var j jwk
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, err
	}
	if j.Use != "" && j.Use != "sig" {
		return nil, fmt.Errorf("use is %q, not \"sig\"", j.Use)
	}
	if j.KeyOps != nil && !slices.Contains(j.KeyOps, "verify") {
		return nil, fmt.Errorf("key_ops %q lacks \"verify\"", j.KeyOps)
	}
	var (
		family string
		algs   []string
		key    any
		err    error
	)
	switch j.Kty {
	case "oct":
		family, algs = familyHMAC, hmacAlgs
		key, err = octKey(j)
	case "RSA":
		family, algs = familyRSA, rsaAlgs
		key, err = rsaKey(j)
	case "EC":
		family = familyEC
		var alg string
		key, alg, err = ecKey(j)
		algs = []string{alg}
	case "OKP":
		family, algs = familyEd25519, []string{"EdDSA"}
		key, err = ed25519Key(j)
	case "":
		return nil, errors.New("kty is missing")
	default:
		return nil, fmt.Errorf("kty %q is not supported", j.Kty)
	}
	if err != nil {
		return nil, fmt.Errorf("kty %s: %w", j.Kty, err)
	}
	if j.Alg != "" {
		alg := j.Alg
		if alg == "Ed25519" {
			// RFC 9864's fully specified name; tokens still say EdDSA.
			alg = "EdDSA"
		}
		if !slices.Contains(algs, alg) {
			return nil, fmt.Errorf("alg %q does not fit kty %s", j.Alg, j.Kty)
		}
		algs = []string{alg}
	}
	return newVerifyKey(j.Kid, family, algs, key), nil
}

func octKey(j jwk) ([]byte, error) {
	k, err := decodeMember("k", j.K)
	if err != nil {
		return nil, err
	}
	if len(k) < minSecretBytes {
		return nil, fmt.Errorf("k is %d bytes, at least %d are needed", len(k), minSecretBytes)
	}
	return k, nil
}

func rsaKey(j jwk) (*rsa.PublicKey, error) {
	n, err := decodeMember("n", j.N)
	if err != nil {
		return nil, err
	}
	e, err := decodeMember("e", j.E)
	if err != nil {
		return nil, err
	}
	pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n)}
	if bits := pub.N.BitLen(); bits < minRSABits {
		return nil, fmt.Errorf("n is %d bits, at least %d are needed", bits, minRSABits)
	}
	eb := new(big.Int).SetBytes(e)
	// crypto/rsa accepts exponents up to 2^31-1; an even or tiny one is not
	// a real RSA key.
	if eb.BitLen() > 31 || eb.Int64() < 3 || eb.Bit(0) == 0 {
		return nil, errors.New("e is not a valid RSA exponent")
	}
	pub.E = int(eb.Int64())
	return pub, nil
}

// ecKey returns the key and the one ES algorithm its curve signs with.
func ecKey(j jwk) (*ecdsa.PublicKey, string, error) {
	var curve elliptic.Curve
	var alg string
	switch j.Crv {
	case "P-256":
		curve, alg = elliptic.P256(), "ES256"
	case "P-384":
		curve, alg = elliptic.P384(), "ES384"
	case "P-521":
		curve, alg = elliptic.P521(), "ES512"
	default:
		return nil, "", fmt.Errorf("crv %q is not supported", j.Crv)
	}
	size := (curve.Params().BitSize + 7) / 8
	x, err := decodeMember("x", j.X)
	if err != nil {
		return nil, "", err
	}
	y, err := decodeMember("y", j.Y)
	if err != nil {
		return nil, "", err
	}
	if len(x) > size || len(y) > size {
		return nil, "", fmt.Errorf("x or y is longer than %d bytes", size)
	}
	// Uncompressed SEC 1 point: 0x04 || X || Y, coordinates left-padded to
	// the curve size (some encoders drop leading zero bytes).
	point := make([]byte, 1+2*size)
	point[0] = 4
	copy(point[1+size-len(x):1+size], x)
	copy(point[1+2*size-len(y):], y)
	// ParseUncompressedPublicKey checks the point is on the curve, which
	// guards against invalid-curve attacks.
	pub, err := ecdsa.ParseUncompressedPublicKey(curve, point)
	if err != nil {
		return nil, "", err
	}
	return pub, alg, nil
}

func ed25519Key(j jwk) (ed25519.PublicKey, error) {
	if j.Crv != "Ed25519" {
		return nil, fmt.Errorf("crv %q is not supported", j.Crv)
	}
	x, err := decodeMember("x", j.X)
	if err != nil {
		return nil, err
	}
	if len(x) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("x is %d bytes, want %d", len(x), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(x), nil
}

// decodeMember decodes a base64url JWK member. Padding and the standard
// alphabet are tolerated: hand-written JWKs carry both.
func decodeMember(name, value string) ([]byte, error) {
	if value == "" {
		return nil, fmt.Errorf("%s is missing", name)
	}
	b, err := decodeBase64(value)
	if err != nil {
		return nil, fmt.Errorf("%s is not base64url: %w", name, err)
	}
	return b, nil
}
