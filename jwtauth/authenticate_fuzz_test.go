package jwtauth

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// fuzzAudience is the jwt_aud of the fuzzed verifier.
const fuzzAudience = "pgrest-fuzz"

// fuzzKey is one configured key as the property check sees it: the key
// and the algorithms its type allows, stated here rather than read from
// the verifier, so the check does not trust what it checks.
type fuzzKey struct {
	kid  string
	algs []string
	key  any
}

// fuzzKeys are the keys of the fuzzed verifier's JWKS, one of each type.
func fuzzKeys() []fuzzKey {
	k := testKeys()
	return []fuzzKey{
		{"hs", []string{"HS256", "HS384", "HS512"}, []byte(testSecret)},
		{"rsa", []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}, &k.rsaA.PublicKey},
		{"ec", []string{"ES256"}, &k.p256.PublicKey},
		{"ed", []string{"EdDSA"}, k.ed.Public().(ed25519.PublicKey)},
	}
}

// fuzzVerifier verifies with a JWKS of fuzzKeys, an audience and a small
// cache, so cached answers are fuzzed too.
func fuzzVerifier(t testing.TB) *Verifier {
	k := testKeys()
	set := jwks(
		octJWK([]byte(testSecret), map[string]any{"kid": "hs"}),
		rsaJWK(&k.rsaA.PublicKey, map[string]any{"kid": "rsa"}),
		ecJWK(&k.p256.PublicKey, map[string]any{"kid": "ec"}),
		edJWK(k.ed.Public().(ed25519.PublicKey), map[string]any{"kid": "ed"}),
	)
	return newVerifier(t, Config{Secret: set, Audience: fuzzAudience, AnonRole: "anon", CacheMaxEntries: 16})
}

// fuzzSeeds are Authorization headers: valid tokens of every key, and the
// usual attacks on them.
func fuzzSeeds(f *testing.F) []string {
	k := testKeys()
	claims := func() jwt.MapClaims {
		return jwt.MapClaims{"role": "author", "aud": fuzzAudience, "exp": t0.Unix() + 60, "n": json.Number("12345678901234567890")}
	}
	hs := sign(f, jwt.SigningMethodHS256, []byte(testSecret), claims(), map[string]any{"kid": "hs"})
	rs := sign(f, jwt.SigningMethodRS256, k.rsaA, claims(), map[string]any{"kid": "rsa"})
	ps := sign(f, jwt.SigningMethodPS384, k.rsaA, claims(), nil)
	es := sign(f, jwt.SigningMethodES256, k.p256, claims(), map[string]any{"kid": "ec"})
	ed := sign(f, jwt.SigningMethodEdDSA, k.ed, claims(), map[string]any{"kid": "ed"})
	dot := strings.LastIndexByte(hs, '.')
	tokens := []string{
		hs, rs, ps, es, ed,
		sign(f, jwt.SigningMethodHS512, []byte(testSecret), jwt.MapClaims{"role": "author"}, nil),
		sign(f, jwt.SigningMethodHS256, []byte(testSecret), jwt.MapClaims{}, map[string]any{"kid": 7}),
		sign(f, jwt.SigningMethodHS256, []byte(testSecret), jwt.MapClaims{"role": nil, "aud": []string{"x", fuzzAudience}}, nil),
		sign(f, jwt.SigningMethodHS256, []byte(testSecret), jwt.MapClaims{"role": 1, "nbf": t0.Unix() + 3600}, nil),
		sign(f, jwt.SigningMethodHS256, []byte(testSecret), jwt.MapClaims{"role": "author", "exp": "soon"}, nil),
		sign(f, jwt.SigningMethodHS256, []byte(testSecret), jwt.MapClaims{"role": "author", "aud": "other"}, nil),
		// Algorithm confusion: HMAC keyed with public key bytes.
		sign(f, jwt.SigningMethodHS256, k.rsaA.PublicKey.N.Bytes(), claims(), map[string]any{"kid": "rsa"}),
		sign(f, jwt.SigningMethodHS256, []byte(k.ed.Public().(ed25519.PublicKey)), claims(), nil),
		// Another key of the same type.
		sign(f, jwt.SigningMethodRS256, k.rsaB, claims(), map[string]any{"kid": "rsa"}),
		sign(f, jwt.SigningMethodES384, k.p384, claims(), map[string]any{"kid": "ec"}),
		// alg none, a wrong kid, a swapped signature, hand-made payloads.
		b64([]byte(`{"alg":"none"}`)) + "." + b64([]byte(`{"role":"author"}`)) + ".",
		b64([]byte(`{"alg":"NoNe"}`)) + "." + b64([]byte(`{"role":"author"}`)) + "." + hs[dot+1:],
		sign(f, jwt.SigningMethodRS256, k.rsaA, claims(), map[string]any{"kid": "ec"}),
		hs[:dot+1] + rs[strings.LastIndexByte(rs, '.')+1:],
		rawToken(f, `{"alg":"HS256"}`, `{"role":"author"} {"role":"admin"}`),
		rawToken(f, `{"alg":"HS256"}`, `{"role":"author","role":"admin"}`),
		rawToken(f, `{"alg":"HS256"}`, `[{"role":"author"}]`),
		rawToken(f, `{"alg":"HS256","kid":["hs"]}`, `{"role":"none","exp":1e400}`),
		hs + ".", hs[:dot], "a.b.c", "..", "",
	}
	headers := []string{"", "Basic dXNlcjpwYXNz", "Bearer", "bearer  " + hs + " "}
	for _, tok := range tokens {
		headers = append(headers, "Bearer "+tok)
	}
	return headers
}

// FuzzAuthenticateAcceptsOnlyVerifiedTokens checks that whatever
// Authorization header arrives, Authenticate does not panic, answers the
// same from its cache, and accepts a token only when golang-jwt, given the
// configured keys and the algorithms their types allow, verifies it too,
// with the claims, role, audience and expiry the payload holds.
func FuzzAuthenticateAcceptsOnlyVerifiedTokens(f *testing.F) {
	for _, h := range fuzzSeeds(f) {
		f.Add(h)
	}
	v := fuzzVerifier(f)
	keys := fuzzKeys()
	f.Fuzz(func(t *testing.T, authorization string) {
		id, aerr := v.Authenticate(authorization)
		again, aerr2 := v.Authenticate(authorization)
		if (aerr == nil) != (aerr2 == nil) || (aerr != nil && aerr.Code != aerr2.Code) ||
			(aerr == nil && (id.Role != again.Role || id.ClaimsJSON != again.ClaimsJSON)) {
			t.Fatalf("the second answer differs: %+v %v, then %+v %v", id, aerr, again, aerr2)
		}
		if aerr != nil {
			if aerr.Status < 400 || aerr.Status > 500 || !strings.HasPrefix(aerr.Code, "PGRST3") {
				t.Fatalf("a token error is %d %s", aerr.Status, aerr.Code)
			}
			return
		}
		token, isBearer := bearerToken(authorization)
		if !isBearer {
			if id.Role != "anon" || id.Authenticated {
				t.Fatalf("a request without a bearer token runs as %q (authenticated %v)", id.Role, id.Authenticated)
			}
			return
		}
		checkIndependentlyVerified(t, keys, token, id)
	})
}

// checkIndependentlyVerified is the property of an accepted token.
func checkIndependentlyVerified(t *testing.T, keys []fuzzKey, token string, id Identity) {
	t.Helper()
	header, ok := fuzzHeader(token)
	if !ok {
		t.Fatalf("accepted a token whose header does not decode: %q", token)
	}
	var verified jwt.MapClaims
	for _, k := range keys {
		if kid, isString := header["kid"].(string); isString && kid != "" && kid != k.kid {
			continue // a string kid must select the key that verified
		}
		p := jwt.NewParser(jwt.WithValidMethods(k.algs), jwt.WithoutClaimsValidation(), jwt.WithJSONNumber())
		claims := jwt.MapClaims{}
		if _, err := p.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) { return k.key, nil }); err == nil {
			verified = claims
			break
		}
	}
	if verified == nil {
		t.Fatalf("accepted a token no configured key verifies with its own algorithms: %q", token)
	}
	payload := fuzzPayload(t, token)
	if !reflect.DeepEqual(map[string]any(verified), payload) || !reflect.DeepEqual(id.Claims, payload) {
		t.Fatalf("claims differ:\nverifier %v\ngolang-jwt %v\npayload %v", id.Claims, verified, payload)
	}
	wantRole := "anon"
	if r, found := payload["role"]; found && r != nil {
		s, isString := r.(string)
		if !isString || s == "" {
			t.Fatalf("accepted a role claim that is not a non-empty string: %#v", r)
		}
		wantRole = s
	}
	if id.Role != wantRole || id.Authenticated != (wantRole != "anon") {
		t.Fatalf("role %q (authenticated %v), want %q", id.Role, id.Authenticated, wantRole)
	}
	// Numbers stay text: PostgreSQL's json takes 1e400, float64 does not.
	dec := json.NewDecoder(strings.NewReader(id.ClaimsJSON))
	dec.UseNumber()
	var rendered map[string]any
	if err := dec.Decode(&rendered); err != nil || rendered["role"] != id.Role {
		t.Fatalf("ClaimsJSON %s does not carry role %q (%v)", id.ClaimsJSON, id.Role, err)
	}
	if exp, found := payload["exp"]; found && exp != nil {
		n, isNumber := exp.(json.Number)
		f, err := n.Float64()
		if !isNumber || (err == nil && f < float64(t0.Unix()-clockSkew)) {
			t.Fatalf("accepted exp %v at %d", exp, t0.Unix())
		}
	}
	switch aud := payload["aud"].(type) {
	case nil:
	case string:
		if aud != fuzzAudience {
			t.Fatalf("accepted aud %q", aud)
		}
	case []any:
		found := false
		for _, a := range aud {
			found = found || a == fuzzAudience
		}
		if !found {
			t.Fatalf("accepted aud %v", aud)
		}
	default:
		t.Fatalf("accepted aud %#v", aud)
	}
}

// fuzzHeader decodes a token's JOSE header.
func fuzzHeader(token string) (map[string]any, bool) {
	seg, _, _ := strings.Cut(token, ".")
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return nil, false
	}
	var h map[string]any
	return h, json.Unmarshal(b, &h) == nil
}

// fuzzPayload decodes an accepted token's payload on its own: one JSON
// object, numbers kept as json.Number, nothing after it.
func fuzzPayload(t *testing.T, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatalf("accepted a payload that is not base64url: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		t.Fatalf("accepted a payload that is not a JSON object: %q", b)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("accepted a payload with text after its object: %q", b)
	}
	return m
}
