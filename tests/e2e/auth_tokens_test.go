package e2e

import (
	"crypto/elliptic"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Authentication items 1 to 4: how a token is sent, signed, keyed and
// refused.

func TestAuthItem1TokenIsSentAsBearerInTheAuthorizationHeader(t *testing.T) {
	s := startServer(t)
	tok := token(t, jwt.MapClaims{"role": "auth_alice"})

	for _, scheme := range []string{"Bearer", "bearer", "BEARER", "bEaReR"} {
		t.Run("the scheme word "+scheme+" is accepted", func(t *testing.T) {
			if got := authWho(t, s, authScheme(scheme, tok)...); got != "auth_alice" {
				t.Errorf("ran as %q, want auth_alice", got)
			}
		})
	}

	t.Run("spaces around the token are not part of it", func(t *testing.T) {
		if got := authWho(t, s, authScheme("Bearer ", tok+" ")...); got != "auth_alice" {
			t.Errorf("ran as %q, want auth_alice", got)
		}
	})

	t.Run("a header with another scheme carries no token and the request is anonymous", func(t *testing.T) {
		basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("auth_alice:pw"))
		if got := authWho(t, s, "Authorization", basic); got != "web_anon" {
			t.Errorf("ran as %q, want web_anon", got)
		}
	})

	t.Run("a token outside the Authorization header is not read", func(t *testing.T) {
		if got := authWho(t, s, "X-Authorization", "Bearer "+tok); got != "web_anon" {
			t.Errorf("ran as %q, want web_anon", got)
		}
		if got := authWho(t, s, "Cookie", "access_token="+tok); got != "web_anon" {
			t.Errorf("with the token in a cookie ran as %q, want web_anon", got)
		}
	})
}

func TestAuthItem2SymmetricAndAsymmetricTokensAreAcceptedButAlgNoneIsNot(t *testing.T) {
	t.Run("with a passphrase, HMAC tokens are accepted", func(t *testing.T) {
		s := startServer(t)
		for _, m := range []*jwt.SigningMethodHMAC{jwt.SigningMethodHS256, jwt.SigningMethodHS384, jwt.SigningMethodHS512} {
			tok := authSign(t, m, []byte(jwtSecret), "", jwt.MapClaims{"role": "auth_bob"})
			if got := authWho(t, s, bearer(tok)...); got != "auth_bob" {
				t.Errorf("%s token ran as %q, want auth_bob", m.Alg(), got)
			}
		}
		t.Run("and alg none is refused", func(t *testing.T) {
			res := s.get(t, "/rpc/auth_whoami", bearer(authUnsigned(`{"role":"auth_bob"}`))...)
			authExpectTokenError(t, res, 401, "PGRST301", "Wrong or unsupported encoding algorithm")
		})
		t.Run("and an RS256 token is refused: the key, not the token, decides the algorithm", func(t *testing.T) {
			tok := authSign(t, jwt.SigningMethodRS256, authRSAKey(t), "", jwt.MapClaims{"role": "auth_bob"})
			res := s.get(t, "/rpc/auth_whoami", bearer(tok)...)
			authExpectTokenError(t, res, 401, "PGRST301", "No suitable key or wrong key type")
		})
	})

	rsaKey := authRSAKey(t)
	jwk := authJSONText(t, authRSAJWK(rsaKey, ""))
	for _, form := range []struct{ name, line string }{
		{"an inline JWK", authInline(jwk)},
		{"a JWK in a file", authFile(t, jwk)},
	} {
		t.Run("with the RSA public key as "+form.name+", RS256 tokens are accepted", func(t *testing.T) {
			s := startServer(t, form.line)
			tok := authSign(t, jwt.SigningMethodRS256, rsaKey, "", jwt.MapClaims{"role": "auth_alice"})
			if got := authWho(t, s, bearer(tok)...); got != "auth_alice" {
				t.Errorf("ran as %q, want auth_alice", got)
			}
			for _, tc := range []struct {
				name, token, message string
			}{
				{"a token signed by another RSA key is refused",
					authSign(t, jwt.SigningMethodRS256, authRSAKey(t), "", jwt.MapClaims{"role": "auth_alice"}),
					"No suitable key or wrong key type"},
				{"an HS256 token signed with the passphrase is refused",
					token(t, jwt.MapClaims{"role": "auth_alice"}),
					"No suitable key or wrong key type"},
				{"an HS256 token keyed with the public modulus is refused (no algorithm confusion)",
					authSign(t, jwt.SigningMethodHS256, rsaKey.PublicKey.N.Bytes(), "", jwt.MapClaims{"role": "auth_alice"}),
					"No suitable key or wrong key type"},
				{"an alg none token is refused",
					authUnsigned(`{"role":"auth_alice"}`),
					"Wrong or unsupported encoding algorithm"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					res := s.get(t, "/rpc/auth_whoami", bearer(tc.token)...)
					authExpectTokenError(t, res, 401, "PGRST301", tc.message)
				})
			}
		})
	}

	key1, key2 := rsaKey, authRSAKey(t)
	jwks := authJSONText(t, map[string]any{"keys": []any{authRSAJWK(key1, "k1"), authRSAJWK(key2, "k2")}})
	for _, form := range []struct{ name, line string }{
		{"an inline JWKS", authInline(jwks)},
		{"a JWKS in a file", authFile(t, jwks)},
	} {
		t.Run("with "+form.name+", the token's kid selects the key", func(t *testing.T) {
			s := startServer(t, form.line)
			for _, tc := range []struct {
				name, token, role string
			}{
				{"a token signed by the first key with kid k1 is accepted",
					authSign(t, jwt.SigningMethodRS256, key1, "k1", jwt.MapClaims{"role": "auth_alice"}), "auth_alice"},
				{"a token signed by the second key with kid k2 is accepted",
					authSign(t, jwt.SigningMethodRS256, key2, "k2", jwt.MapClaims{"role": "auth_bob"}), "auth_bob"},
				{"a token without kid is tried against every key",
					authSign(t, jwt.SigningMethodRS256, key2, "", jwt.MapClaims{"role": "auth_bob"}), "auth_bob"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					if got := authWho(t, s, bearer(tc.token)...); got != tc.role {
						t.Errorf("ran as %q, want %s", got, tc.role)
					}
				})
			}
			for _, tc := range []struct {
				name, token, message string
			}{
				{"a token signed by the second key but naming k1 is refused",
					authSign(t, jwt.SigningMethodRS256, key2, "k1", jwt.MapClaims{"role": "auth_bob"}),
					"No suitable key or wrong key type"},
				{"a token naming a kid that is not in the set is refused",
					authSign(t, jwt.SigningMethodRS256, key1, "k3", jwt.MapClaims{"role": "auth_alice"}),
					"No suitable key or wrong key type"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					res := s.get(t, "/rpc/auth_whoami", bearer(tc.token)...)
					authExpectTokenError(t, res, 401, "PGRST301", tc.message)
				})
			}
		})
	}

	t.Run("with an EC public key as a JWK, ES256 tokens are accepted", func(t *testing.T) {
		ecKey := authECKey(t, elliptic.P256())
		s := startServer(t, authInline(authJSONText(t, authECJWK(t, ecKey))))
		tok := authSign(t, jwt.SigningMethodES256, ecKey, "", jwt.MapClaims{"role": "auth_carol"})
		if got := authWho(t, s, bearer(tok)...); got != "auth_carol" {
			t.Errorf("ran as %q, want auth_carol", got)
		}
		t.Run("and a token signed by another EC key is refused", func(t *testing.T) {
			other := authSign(t, jwt.SigningMethodES256, authECKey(t, elliptic.P256()), "", jwt.MapClaims{"role": "auth_carol"})
			res := s.get(t, "/rpc/auth_whoami", bearer(other)...)
			authExpectTokenError(t, res, 401, "PGRST301", "No suitable key or wrong key type")
		})
		t.Run("and an ES384 token is refused: a P-256 key verifies ES256 only", func(t *testing.T) {
			other := authSign(t, jwt.SigningMethodES384, authECKey(t, elliptic.P384()), "", jwt.MapClaims{"role": "auth_carol"})
			res := s.get(t, "/rpc/auth_whoami", bearer(other)...)
			authExpectTokenError(t, res, 401, "PGRST301", "No suitable key or wrong key type")
		})
	})
}

func TestAuthItem3KeyIsConfiguredInJWTSecret(t *testing.T) {
	t.Run("with no key configured a request with a token fails with 500 PGRST300", func(t *testing.T) {
		s := startServer(t, "-jwt_secret")
		res := s.get(t, "/rpc/auth_whoami", bearer(token(t, jwt.MapClaims{"role": "auth_alice"}))...)
		e := res.expectError(t, 500, "PGRST300")
		authExpectMessage(t, e, "Server lacks JWT secret")

		t.Run("and a request without a token is still served as the anonymous role", func(t *testing.T) {
			if got := authWho(t, s); got != "web_anon" {
				t.Errorf("ran as %q, want web_anon", got)
			}
		})
	})

	t.Run("a base64 passphrase verifies tokens signed with the decoded bytes", func(t *testing.T) {
		s := startServer(t, "jwt_secret "+base64.StdEncoding.EncodeToString([]byte(jwtSecret)), "jwt_secret_is_base64 true")
		if got := authWho(t, s, bearer(token(t, jwt.MapClaims{"role": "auth_alice"}))...); got != "auth_alice" {
			t.Errorf("ran as %q, want auth_alice", got)
		}
	})

	t.Run("a passphrase in a file is read from the file", func(t *testing.T) {
		s := startServer(t, authFile(t, jwtSecret))
		if got := authWho(t, s, bearer(token(t, jwt.MapClaims{"role": "auth_alice"}))...); got != "auth_alice" {
			t.Errorf("ran as %q, want auth_alice", got)
		}
	})

	t.Run("a symmetric key may also be an oct JWK", func(t *testing.T) {
		k := base64.RawURLEncoding.EncodeToString([]byte(jwtSecret))
		s := startServer(t, authInline(`{"kty":"oct","alg":"HS256","k":"`+k+`"}`))
		if got := authWho(t, s, bearer(token(t, jwt.MapClaims{"role": "auth_alice"}))...); got != "auth_alice" {
			t.Errorf("ran as %q, want auth_alice", got)
		}
	})
}

func TestAuthItem4UndecodableInvalidOrBadClaimTokensAre401(t *testing.T) {
	s := startServer(t)
	valid := token(t, jwt.MapClaims{"role": "auth_alice"})
	parts := strings.Split(valid, ".")
	otherRole := base64.RawURLEncoding.EncodeToString([]byte(`{"role":"auth_bob"}`))
	authNotJSON := authHS256Raw(`{"alg":"HS256","typ":"JWT"}`, `role=auth_alice`)

	t.Run("a token that cannot be decoded or is invalid gives 401 PGRST301", func(t *testing.T) {
		for _, tc := range []struct {
			name, header, message string
		}{
			{"an empty token", "Bearer", "Empty JWT is sent in Authorization header"},
			{"one part", "Bearer abc", "Expected 3 parts in JWT; got 1"},
			{"four parts", "Bearer " + valid + ".x", "Expected 3 parts in JWT; got 4"},
			{"a header that is not base64url JSON", "Bearer !!!." + parts[1] + "." + parts[2], "JWT cryptographic operation failed"},
			{"a signature made with another secret", "Bearer " + authSign(t, jwt.SigningMethodHS256,
				[]byte("another-secret-that-is-long-enough-0123456789"), "", jwt.MapClaims{"role": "auth_alice"}),
				"No suitable key or wrong key type"},
			{"a payload changed after signing", "Bearer " + parts[0] + "." + otherRole + "." + parts[2],
				"No suitable key or wrong key type"},
			{"a signature cut short", "Bearer " + valid[:len(valid)-4], "No suitable key or wrong key type"},
			{"a payload that is not JSON under a signature that does not match", "Bearer " + authNotJSON[:strings.LastIndexByte(authNotJSON, '.')+1] + parts[2],
				"No suitable key or wrong key type"},
			{"an algorithm pgrest does not know", "Bearer " + authHS256Raw(`{"alg":"HS999","typ":"JWT"}`, `{"role":"auth_alice"}`),
				"JWT cryptographic operation failed"},
		} {
			t.Run(tc.name+" is refused", func(t *testing.T) {
				res := s.get(t, "/rpc/auth_whoami", "Authorization", tc.header)
				authExpectTokenError(t, res, 401, "PGRST301", tc.message)
			})
		}
	})

	t.Run("claims that fail validation or parsing give 401 PGRST303", func(t *testing.T) {
		for _, tc := range []struct {
			name, token, message string
		}{
			{"an expired token", token(t, jwt.MapClaims{"role": "auth_alice", "exp": authNow(-time.Hour)}), "JWT expired"},
			{"an exp that is not a number", token(t, jwt.MapClaims{"role": "auth_alice", "exp": "tomorrow"}),
				"The JWT 'exp' claim must be a number"},
			{"a numeric role claim", token(t, jwt.MapClaims{"role": 42}), "The JWT role claim must be a non-empty string"},
			{"an array role claim", token(t, jwt.MapClaims{"role": []string{"auth_alice"}}),
				"The JWT role claim must be a non-empty string"},
			{"an object role claim", token(t, jwt.MapClaims{"role": map[string]any{"name": "auth_alice"}}),
				"The JWT role claim must be a non-empty string"},
			{"an empty role claim", token(t, jwt.MapClaims{"role": ""}), "The JWT role claim must be a non-empty string"},
			{"a payload that is JSON but not an object", authHS256Raw(`{"alg":"HS256","typ":"JWT"}`, `["auth_alice"]`),
				"Parsing claims failed"},
			{"a correctly signed payload that is not JSON", authNotJSON, "Parsing claims failed"},
		} {
			t.Run(tc.name+" is refused", func(t *testing.T) {
				res := s.get(t, "/rpc/auth_whoami", bearer(tc.token)...)
				authExpectTokenError(t, res, 401, "PGRST303", tc.message)
			})
		}
	})

	t.Run("with jwt_aud set", func(t *testing.T) {
		s := startServer(t, "jwt_aud https://api.example.com")
		for _, tc := range []struct {
			name string
			aud  any
		}{
			{"a token for another audience is refused with 401 PGRST303", "https://other.example.com"},
			{"a token whose audience list lacks it is refused with 401 PGRST303", []string{"a", "b"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := s.get(t, "/rpc/auth_whoami", bearer(token(t, jwt.MapClaims{"role": "auth_alice", "aud": tc.aud}))...)
				authExpectTokenError(t, res, 401, "PGRST303", "JWT not in audience")
			})
		}
		for _, tc := range []struct {
			name string
			aud  any
		}{
			{"a token for that audience is accepted", "https://api.example.com"},
			{"a token whose audience list holds it is accepted", []string{"x", "https://api.example.com"}},
			{"a token without aud is accepted", nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				claims := jwt.MapClaims{"role": "auth_alice"}
				if tc.aud != nil {
					claims["aud"] = tc.aud
				}
				if got := authWho(t, s, bearer(token(t, claims))...); got != "auth_alice" {
					t.Errorf("ran as %q, want auth_alice", got)
				}
			})
		}
	})
}
