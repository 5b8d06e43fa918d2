package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// A corpus of hostile tokens sent through the real server. Every token
// below claims a role with privileges (auth_alice) unless the case is about
// the role claim itself; each case names the answer it must get. A case
// either fails with its contract error, so no data comes back, or runs as
// the one role it names, read from current_user; no case may run as the
// authenticator or as a role its token did not validly claim.

// attackCase is one hostile token and what the server must answer.
type attackCase struct {
	name  string
	token string
	// status, code and message are the error expected; when status is 0
	// the request must succeed as runsAs.
	status        int
	code, message string
	runsAs        string
}

// refused is a case that must fail with status, code and message.
func refused(name, token string, status int, code, message string) attackCase {
	return attackCase{name: name, token: token, status: status, code: code, message: message}
}

// runsAs is a case that must succeed as role, and only as role.
func runsAs(name, token, role string) attackCase {
	return attackCase{name: name, token: token, runsAs: role}
}

// attackCheck sends the case's token to an RPC returning current_user.
func attackCheck(t *testing.T, s *server, tc attackCase) {
	t.Helper()
	res := s.get(t, "/rpc/auth_whoami", "Authorization", "Bearer "+tc.token)
	if tc.status == 0 {
		if res.Status != 200 {
			t.Fatalf("status %d, want 200 as %s; body %s", res.Status, tc.runsAs, res.Body)
		}
		if got, _ := res.JSON(t).(string); got != tc.runsAs || got == "authenticator" {
			t.Fatalf("ran as %q, want %s", got, tc.runsAs)
		}
		return
	}
	if res.Status == 200 {
		t.Fatalf("the token was accepted and returned data: %s", res.Body)
	}
	switch tc.code {
	case "PGRST301", "PGRST303":
		authExpectTokenError(t, res, tc.status, tc.code, tc.message)
	default:
		authExpectMessage(t, res.expectError(t, tc.status, tc.code), tc.message)
	}
}

// attackSuite runs cases against one server configuration. Servers run one
// at a time, so each suite starts its own after the previous one stopped.
func attackSuite(t *testing.T, name string, lines []string, cases []attackCase) {
	t.Run(name, func(t *testing.T) {
		s := startServer(t, lines...)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) { attackCheck(t, s, tc) })
		}
	})
}

// attackB64 is base64url without padding, the JWS encoding.
func attackB64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// attackRaw assembles header.payload.signature from JSON texts and raw
// signature bytes.
func attackRaw(header, payload string, sig []byte) string {
	return attackB64([]byte(header)) + "." + attackB64([]byte(payload)) + "." + attackB64(sig)
}

// attackHMAC signs header.payload with HS256 keyed with key, for tokens
// keyed with bytes an attacker can know (a public key).
func attackHMAC(t testing.TB, header, payload string, key []byte) string {
	t.Helper()
	input := attackB64([]byte(header)) + "." + attackB64([]byte(payload))
	sig, err := jwt.SigningMethodHS256.Sign(input, key)
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + attackB64(sig)
}

// attackWithKid signs claims with method and key under a header whose kid
// is any JSON value (absent when kid is nil).
func attackWithKid(t testing.TB, method jwt.SigningMethod, key any, kid any, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != nil {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// attackReplaceSig puts sig (base64url text) in place of tok's signature.
func attackReplaceSig(tok, sig string) string {
	return tok[:strings.LastIndexByte(tok, '.')+1] + sig
}

// attackFlipByte flips one bit in the middle of tok's signature.
func attackFlipByte(t testing.TB, tok string) string {
	t.Helper()
	sig, err := base64.RawURLEncoding.DecodeString(tok[strings.LastIndexByte(tok, '.')+1:])
	if err != nil {
		t.Fatal(err)
	}
	sig[len(sig)/2] ^= 0x01
	return attackReplaceSig(tok, attackB64(sig))
}

// An attackKey is a public key an algorithm-confusion token is keyed with.
type attackKey struct {
	name string
	pub  any
}

// hmacConfusion are HS256 tokens for payload whose HMAC key is one of the
// public keys, in every form attackPublicKeyForms gives, without a kid and
// with kid in the header ("... naming ..."): each must be refused as
// PGRST301, named "an HS256 token keyed with <key> as <form> [naming]
// outcome".
func hmacConfusion(t testing.TB, keys []attackKey, payload, kid, naming, outcome string) []attackCase {
	t.Helper()
	var cases []attackCase
	for _, key := range keys {
		for form, b := range attackPublicKeyForms(t, key.pub) {
			cases = append(cases,
				refused("an HS256 token keyed with "+key.name+" as "+form+" "+outcome,
					attackHMAC(t, `{"alg":"HS256","typ":"JWT"}`, payload, b),
					401, "PGRST301", "No suitable key or wrong key type"),
				refused("an HS256 token keyed with "+key.name+" as "+form+" "+naming+" "+outcome,
					attackHMAC(t, `{"alg":"HS256","typ":"JWT","kid":"`+kid+`"}`, payload, b),
					401, "PGRST301", "No suitable key or wrong key type"))
		}
	}
	return cases
}

// attackPublicKeyForms are the byte strings an algorithm-confusion attacker
// tries as an HMAC key: the public key as published in each usual form.
func attackPublicKeyForms(t testing.TB, pub any) map[string][]byte {
	t.Helper()
	pkix, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	forms := map[string][]byte{
		"PEM":      pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pkix}),
		"DER":      pkix,
		"JWK JSON": nil, // filled below
	}
	switch k := pub.(type) {
	case *rsa.PublicKey:
		forms["PKCS#1 PEM"] = pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(k)})
		forms["modulus bytes"] = k.N.Bytes()
		forms["JWK JSON"] = []byte(authJSONText(t, authRSAJWK(&rsa.PrivateKey{PublicKey: *k}, "rsa-1")))
	case *ecdsa.PublicKey:
		point, err := k.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		forms["point bytes"] = point
		forms["JWK JSON"] = []byte(authJSONText(t, authECJWK(t, &ecdsa.PrivateKey{PublicKey: *k})))
	}
	return forms
}

func TestAuthAttackCorpusEveryHostileTokenIsRefusedOrRunsAsItsValidRole(t *testing.T) {
	const alice = `{"role":"auth_alice"}`
	aliceClaims := func() jwt.MapClaims { return jwt.MapClaims{"role": "auth_alice"} }
	rsa1, rsa2, ec1 := authRSAKey(t), authRSAKey(t), authECKey(t, elliptic.P256())

	// --- the default server: an HS256 passphrase -------------------------
	valid := token(t, aliceClaims())
	bob := token(t, jwt.MapClaims{"role": "auth_bob"})
	var passphrase []attackCase
	passphrase = append(passphrase, runsAs("a valid token runs as its role (the control)", valid, "auth_alice"))

	// Only "none" itself is the unsecured algorithm; PostgREST's JOSE
	// library knows no other spelling, so those are tokens that do not
	// parse.
	for _, alg := range []string{"none", "None", "NONE", "nOnE"} {
		header := `{"alg":"` + alg + `","typ":"JWT"}`
		message := "JWT cryptographic operation failed"
		if alg == "none" {
			message = "Wrong or unsupported encoding algorithm"
		}
		passphrase = append(passphrase,
			refused("alg "+alg+" with an empty signature is refused", attackRaw(header, alice, nil),
				401, "PGRST301", message),
			refused("alg "+alg+" with the signature of a valid token is refused",
				attackReplaceSig(attackRaw(header, alice, nil), valid[strings.LastIndexByte(valid, '.')+1:]),
				401, "PGRST301", message),
			refused("alg "+alg+" with a garbage signature is refused", attackRaw(header, alice, []byte("signature")),
				401, "PGRST301", message))
	}
	passphrase = append(passphrase,
		refused("an alg that is not a string is refused", authHS256Raw(`{"alg":256,"typ":"JWT"}`, alice),
			401, "PGRST301", "JWT cryptographic operation failed"),
		refused("a header without alg is refused", authHS256Raw(`{"typ":"JWT"}`, alice),
			401, "PGRST301", "JWT cryptographic operation failed"),

		// Bad signatures.
		refused("a signature with one flipped bit is refused", attackFlipByte(t, valid),
			401, "PGRST301", "No suitable key or wrong key type"),
		refused("a signature cut in half is refused", valid[:len(valid)-21],
			401, "PGRST301", "No suitable key or wrong key type"),
		refused("an empty signature is refused", attackReplaceSig(valid, ""),
			401, "PGRST301", "No suitable key or wrong key type"),
		refused("the signature of another token is refused", attackReplaceSig(valid, bob[strings.LastIndexByte(bob, '.')+1:]),
			401, "PGRST301", "No suitable key or wrong key type"),
		refused("a signature in padded standard base64 is refused",
			attackReplaceSig(valid, base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\xff", 32)))),
			401, "PGRST301", "JWT cryptographic operation failed"),
		refused("a token signed with the passphrase's first 31 bytes is refused",
			authSign(t, jwt.SigningMethodHS256, []byte(jwtSecret[:31]), "", aliceClaims()),
			401, "PGRST301", "No suitable key or wrong key type"),

		// Time claims (30 s of clock skew are allowed).
		refused("an expired token is refused", token(t, jwt.MapClaims{"role": "auth_alice", "exp": authNow(-time.Hour)}),
			401, "PGRST303", "JWT expired"),
		runsAs("a token expired within the clock skew still runs",
			token(t, jwt.MapClaims{"role": "auth_alice", "exp": authNow(-10 * time.Second)}), "auth_alice"),
		refused("a token whose nbf is in the future is refused", token(t, jwt.MapClaims{"role": "auth_alice", "nbf": authNow(time.Hour)}),
			401, "PGRST303", "JWT not yet valid"),
		refused("a token issued in the future beyond the skew is refused",
			token(t, jwt.MapClaims{"role": "auth_alice", "iat": authNow(time.Hour)}),
			401, "PGRST303", "JWT issued at future"),
		refused("an exp that is a word is refused", token(t, jwt.MapClaims{"role": "auth_alice", "exp": "tomorrow"}),
			401, "PGRST303", "The JWT 'exp' claim must be a number"),
		refused("an exp that is a number in a string is refused",
			token(t, jwt.MapClaims{"role": "auth_alice", "exp": strconv.FormatInt(authNow(time.Hour), 10)}),
			401, "PGRST303", "The JWT 'exp' claim must be a number"),
		refused("an exp that is a boolean is refused", token(t, jwt.MapClaims{"role": "auth_alice", "exp": true}),
			401, "PGRST303", "The JWT 'exp' claim must be a number"),
		refused("a negative exp is refused as expired", token(t, jwt.MapClaims{"role": "auth_alice", "exp": -1}),
			401, "PGRST303", "JWT expired"),

		// Shapes.
		refused("a token over 16 KiB is refused before it is decoded",
			token(t, jwt.MapClaims{"role": "auth_alice", "pad": strings.Repeat("x", 16<<10)}),
			401, "PGRST301", "JWT is longer than 16384 bytes"),
		refused("a token of a thousand dots is refused", strings.Repeat(".", 1000),
			401, "PGRST301", "Expected 3 parts in JWT; got 1001"),
		refused("a token with two parts is refused", valid[:strings.LastIndexByte(valid, '.')],
			401, "PGRST301", "Expected 3 parts in JWT; got 2"),
		refused("a token with four parts is refused", valid+"."+attackB64([]byte("x")),
			401, "PGRST301", "Expected 3 parts in JWT; got 4"),
		refused("base64 garbage is refused", "%%%.^^^.***",
			401, "PGRST301", "JWT cryptographic operation failed"),
		refused("a header that is a JSON array is refused", authHS256Raw(`["HS256"]`, alice),
			401, "PGRST301", "JWT cryptographic operation failed"),
		refused("a signed payload that is a JSON string is refused", authHS256Raw(`{"alg":"HS256"}`, `"auth_alice"`),
			401, "PGRST303", "Parsing claims failed"),
		refused("a signed payload that is JSON null is refused", authHS256Raw(`{"alg":"HS256"}`, `null`),
			401, "PGRST303", "Parsing claims failed"),
		refused("a signed payload that is a number is refused", authHS256Raw(`{"alg":"HS256"}`, `42`),
			401, "PGRST303", "Parsing claims failed"),
		refused("a signed payload with trailing garbage is refused", authHS256Raw(`{"alg":"HS256"}`, alice+`x`),
			401, "PGRST303", "Parsing claims failed"),

		// The role claim.
		refused("a role that is a number is refused", token(t, jwt.MapClaims{"role": 1}),
			401, "PGRST303", "The JWT role claim must be a non-empty string"),
		refused("a role that is an object is refused", token(t, jwt.MapClaims{"role": map[string]any{"name": "auth_alice"}}),
			401, "PGRST303", "The JWT role claim must be a non-empty string"),
		refused("a role that is an array is refused", token(t, jwt.MapClaims{"role": []string{"auth_alice"}}),
			401, "PGRST303", "The JWT role claim must be a non-empty string"),
		refused("a role that is a boolean is refused", token(t, jwt.MapClaims{"role": true}),
			401, "PGRST303", "The JWT role claim must be a non-empty string"),
		runsAs("a null role counts as no role and runs as the anonymous role", token(t, jwt.MapClaims{"role": nil}), "web_anon"),
		refused("the role none is refused: it would run as the authenticator", token(t, jwt.MapClaims{"role": "none"}),
			403, "42501", `permission denied to set role "none"`),
		refused("the authenticator's own name is refused", token(t, jwt.MapClaims{"role": "authenticator"}),
			403, "42501", `permission denied to set role "authenticator"`),
		refused("the superuser is refused: the authenticator was not granted it", token(t, jwt.MapClaims{"role": "postgres"}),
			403, "42501", `permission denied to set role "postgres"`),
		refused("a role with a quote and a semicolon is only a name that does not exist",
			token(t, jwt.MapClaims{"role": `auth_alice"; reset role; --`}),
			401, "22023", `role "auth_alice"; reset role; --" does not exist`),
		refused("a role with a single quote is only a name that does not exist",
			token(t, jwt.MapClaims{"role": `auth_alice' or '1'='1`}),
			401, "22023", `role "auth_alice' or '1'='1" does not exist`),
		refused("a role in other letters is only a name that does not exist", token(t, jwt.MapClaims{"role": "аuth_alice"}),
			401, "22023", `role "аuth_alice" does not exist`),
		refused("a role with a NUL byte is refused by PostgreSQL as text it cannot hold",
			token(t, jwt.MapClaims{"role": "auth_alice\x00x"}),
			400, "22021", `invalid byte sequence for encoding "UTF8": 0x00`),
		refused("a role with a trailing newline is only a name that does not exist",
			token(t, jwt.MapClaims{"role": "auth_alice\n"}),
			401, "22023", "role \"auth_alice\n\" does not exist"),
		refused("a role with bytes that are not UTF-8 reaches PostgreSQL as U+FFFD and does not exist",
			authHS256Raw(`{"alg":"HS256"}`, "{\"role\":\"auth_\xff\"}"),
			401, "22023", "role \"auth_\uFFFD\" does not exist"),
		refused("the anonymous role's name in capitals is another role", token(t, jwt.MapClaims{"role": "WEB_ANON"}),
			401, "22023", `role "WEB_ANON" does not exist`),
		refused("a role padded past 63 bytes is cut by PostgreSQL to a name that does not exist",
			token(t, jwt.MapClaims{"role": "auth_alice" + strings.Repeat("_", 60)}),
			401, "22023", `role "auth_alice`+strings.Repeat("_", 53)+`" does not exist`),
	)
	attackSuite(t, "with an HS256 passphrase", nil, passphrase)

	// --- a JWKS of two RSA keys and one EC key ----------------------------
	ecJWK := authECJWK(t, ec1)
	ecJWK["kid"] = "ec-1"
	asymmetric := authJSONText(t, map[string]any{"keys": []any{authRSAJWK(rsa1, "rsa-1"), authRSAJWK(rsa2, "rsa-2"), ecJWK}})
	rs1 := attackWithKid(t, jwt.SigningMethodRS256, rsa1, "rsa-1", aliceClaims())
	var jwks []attackCase
	jwks = append(jwks,
		runsAs("a token signed by rsa-1 naming rsa-1 runs (the control)", rs1, "auth_alice"),
		runsAs("an ES256 token signed by ec-1 runs (the control)", attackWithKid(t, jwt.SigningMethodES256, ec1, "ec-1", aliceClaims()), "auth_alice"),
		refused("a token naming an unknown kid is refused", attackWithKid(t, jwt.SigningMethodRS256, rsa1, "rsa-3", aliceClaims()),
			401, "PGRST301", "No suitable key or wrong key type"),
		refused("a token signed by rsa-2 naming rsa-1 is refused", attackWithKid(t, jwt.SigningMethodRS256, rsa2, "rsa-1", aliceClaims()),
			401, "PGRST301", "No suitable key or wrong key type"),
		refused("an RS256 token naming the EC key is refused", attackWithKid(t, jwt.SigningMethodRS256, rsa1, "ec-1", aliceClaims()),
			401, "PGRST301", "No suitable key or wrong key type"),
		refused("a kid with a path traversal names no key", attackWithKid(t, jwt.SigningMethodRS256, rsa1, "../../../../etc/passwd", aliceClaims()),
			401, "PGRST301", "No suitable key or wrong key type"),
		refused("a kid with SQL names no key", attackWithKid(t, jwt.SigningMethodRS256, rsa1, "rsa-1' or '1'='1", aliceClaims()),
			401, "PGRST301", "No suitable key or wrong key type"),
		refused("a very long kid names no key", attackWithKid(t, jwt.SigningMethodRS256, rsa1, strings.Repeat("k", 8<<10), aliceClaims()),
			401, "PGRST301", "No suitable key or wrong key type"),
		refused("an empty-string kid from an unknown key is refused", attackWithKid(t, jwt.SigningMethodRS256, authRSAKey(t), "", aliceClaims()),
			401, "PGRST301", "No suitable key or wrong key type"),
		refused("a PS256 token from rsa-1 is refused: its JWK pins RS256", attackWithKid(t, jwt.SigningMethodPS256, rsa1, "rsa-1", aliceClaims()),
			401, "PGRST301", "No suitable key or wrong key type"),
		refused("an ES384 token naming the P-256 key is refused", attackWithKid(t, jwt.SigningMethodES384, authECKey(t, elliptic.P384()), "ec-1", aliceClaims()),
			401, "PGRST301", "No suitable key or wrong key type"),
		refused("an HS256 token signed with the passphrase is refused: no key is symmetric", token(t, aliceClaims()),
			401, "PGRST301", "No suitable key or wrong key type"),
	)
	// A kid that is not a string names no key: the token is tried against
	// every key of its family, and only a real signature passes.
	for _, kid := range []any{1, map[string]any{"a": "rsa-1"}, []string{"rsa-1"}, true} {
		name := authJSONText(t, kid)
		jwks = append(jwks,
			runsAs("a kid "+name+" signed by rsa-2 still verifies against the set", attackWithKid(t, jwt.SigningMethodRS256, rsa2, kid, aliceClaims()), "auth_alice"),
			refused("a kid "+name+" signed by an unknown key is refused", attackWithKid(t, jwt.SigningMethodRS256, authRSAKey(t), kid, aliceClaims()),
				401, "PGRST301", "No suitable key or wrong key type"))
	}
	publicKeys := []attackKey{{"the RSA key", &rsa1.PublicKey}, {"the EC key", &ec1.PublicKey}}
	jwks = append(jwks, hmacConfusion(t, publicKeys, alice, "rsa-1", "naming its kid", "is refused")...)
	attackSuite(t, "with a JWKS of RSA and EC keys", []string{authInline(asymmetric)}, jwks)

	// --- a JWKS mixing a symmetric key with the public ones ---------------
	// Here HS256 is acceptable, so confusion tokens reach an HMAC check;
	// they must fail it, since the HMAC key is the secret, not the
	// public key.
	octJWK := map[string]any{"kty": "oct", "kid": "hs-1", "k": attackB64([]byte(jwtSecret))}
	mixed := authJSONText(t, map[string]any{"keys": []any{octJWK, authRSAJWK(rsa1, "rsa-1"), ecJWK}})
	var mixedCases []attackCase
	mixedCases = append(mixedCases,
		runsAs("an HS256 token signed with the secret runs (the control)", token(t, aliceClaims()), "auth_alice"),
		runsAs("an RS256 token signed by rsa-1 runs (the control)", rs1, "auth_alice"),
		refused("an HS256 token signed with the secret but naming rsa-1 is refused", attackWithKid(t, jwt.SigningMethodHS256, []byte(jwtSecret), "rsa-1", aliceClaims()),
			401, "PGRST301", "No suitable key or wrong key type"))
	mixedCases = append(mixedCases, hmacConfusion(t, publicKeys, alice, "hs-1", "naming hs-1", "fails the HMAC check")...)
	attackSuite(t, "with a JWKS mixing a symmetric and public keys", []string{authInline(mixed)}, mixedCases)

	// --- a nested role claim key ------------------------------------------
	nested := func(v any) string { return token(t, jwt.MapClaims{"app": map[string]any{"roles": v}}) }
	attackSuite(t, "with jwt_role_claim_key .app.roles[0]", []string{"jwt_role_claim_key .app.roles[0]"}, []attackCase{
		runsAs("the role at the path runs (the control)", nested([]string{"auth_alice"}), "auth_alice"),
		runsAs("a top-level role claim is not the role and the request is anonymous", token(t, aliceClaims()), "web_anon"),
		runsAs("an empty roles array means no role", nested([]string{}), "web_anon"),
		runsAs("roles that are not an array mean no role", nested("auth_alice"), "web_anon"),
		refused("a number at the path is refused", nested([]any{7}),
			401, "PGRST303", "The JWT role claim must be a non-empty string"),
		refused("an object at the path is refused", nested([]any{map[string]any{"role": "auth_alice"}}),
			401, "PGRST303", "The JWT role claim must be a non-empty string"),
		refused("none at the path is refused", nested([]string{"none"}),
			403, "42501", `permission denied to set role "none"`),
		refused("the authenticator at the path is refused", nested([]string{"authenticator"}),
			403, "42501", `permission denied to set role "authenticator"`),
	})
}
