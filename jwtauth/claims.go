package jwtauth

import (
	"bytes"
	"encoding/json"
	"io"
	"time"

	"github.com/golang-jwt/jwt/v5"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// clockSkew is the leeway PostgREST allows on exp, nbf and iat, in seconds:
// clocks of the issuer and the server drift.
const clockSkew = 30

// PGRST303 messages, worded as PostgREST words them.
const (
	msgClaimsParse   = "Parsing claims failed"
	msgAudType       = "The JWT 'aud' claim must be a string or an array of strings"
	msgNotInAudience = "JWT not in audience"
	msgRoleNotString = "The JWT role claim must be a non-empty string"
)

// timeClaimNames are checked in this order; the first failure is reported.
var timeClaimNames = [3]string{"exp", "nbf", "iat"}

// timeClaims holds a token's exp, nbf and iat (indexed as timeClaimNames) so
// a cache hit re-checks them against the clock without decoding again.
type timeClaims struct {
	at  [3]float64
	has [3]bool
}

// readTimeClaims reads and checks exp, nbf and iat in PostgREST's order:
// each claim is parsed then checked before the next is looked at. A JSON
// null counts as absent, as in PostgREST.
func readTimeClaims(claims map[string]any, now time.Time) (timeClaims, *apierr.Error) {
	var t timeClaims
	for i, name := range timeClaimNames {
		v := claims[name]
		if v == nil {
			continue
		}
		n, ok := v.(json.Number)
		if !ok {
			return t, apierr.JWTClaims("The JWT '" + name + "' claim must be a number")
		}
		// The decoder already checked the syntax; the only error left is
		// ErrRange, where Float64 returns ±Inf, which compares correctly.
		t.at[i], _ = n.Float64()
		t.has[i] = true
		if err := t.checkOne(i, now); err != nil {
			return t, err
		}
	}
	return t, nil
}

// check re-runs the time checks, for a token taken from the cache.
func (t *timeClaims) check(now time.Time) *apierr.Error {
	for i := range t.at {
		if err := t.checkOne(i, now); err != nil {
			return err
		}
	}
	return nil
}

// checkOne applies the skew the way PostgREST does: whole seconds of now,
// expired when now-30 > exp, early when now+30 < nbf (or iat).
func (t *timeClaims) checkOne(i int, now time.Time) *apierr.Error {
	if !t.has[i] {
		return nil
	}
	sec := float64(now.Unix())
	switch i {
	case 0:
		if sec-clockSkew > t.at[i] {
			return apierr.JWTClaims("JWT expired")
		}
	case 1:
		if sec+clockSkew < t.at[i] {
			return apierr.JWTClaims("JWT not yet valid")
		}
	case 2:
		if sec+clockSkew < t.at[i] {
			return apierr.JWTClaims("JWT issued at future")
		}
	}
	return nil
}

// expired tells the cache an entry can never be valid again.
func (t *timeClaims) expired(now time.Time) bool {
	return t.has[0] && float64(now.Unix())-clockSkew > t.at[0]
}

// checkAudience checks aud as PostgREST does: a present aud must be a
// string or an array of strings whether or not jwt_aud is set; with jwt_aud
// set, a string must equal it and an array must hold it. A token without
// aud (or with aud null) and one whose aud is an empty array are valid for
// every audience (RFC 7519 §4.1.3 leaves the empty array to the server).
func checkAudience(claims map[string]any, want string) *apierr.Error {
	switch aud := claims["aud"].(type) {
	case nil:
		return nil
	case string:
		if want == "" || aud == want {
			return nil
		}
	case []any:
		found := len(aud) == 0 || want == ""
		for _, a := range aud {
			s, ok := a.(string)
			if !ok {
				return apierr.JWTClaims(msgAudType)
			}
			found = found || s == want
		}
		if found {
			return nil
		}
	default:
		return apierr.JWTClaims(msgAudType)
	}
	return apierr.JWTClaims(msgNotInAudience)
}

// decodeClaims decodes the verified payload; numbers stay json.Number so
// large integers (user ids) keep every digit on their way to SQL.
func decodeClaims(raw []byte) (map[string]any, *apierr.Error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var claims map[string]any
	if err := dec.Decode(&claims); err != nil || claims == nil {
		return nil, apierr.JWTClaims(msgClaimsParse)
	}
	// A decoder stops after the first value; anything but blanks after
	// it makes the payload something other than one JSON object, which
	// other parsers would refuse or read differently.
	if _, err := dec.Token(); err != io.EOF {
		return nil, apierr.JWTClaims(msgClaimsParse)
	}
	return claims, nil
}

// claimsJSON renders request.jwt.claims: the claims with the resolved role
// set as "role", as PostgREST inserts it. claims is not modified.
func claimsJSON(claims map[string]any, role string) (string, error) {
	withRole := make(map[string]any, len(claims)+1)
	for k, v := range claims {
		withRole[k] = v
	}
	withRole["role"] = role
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// The JSON goes to PostgreSQL, not into HTML.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(withRole); err != nil {
		return "", err
	}
	return string(bytes.TrimRight(b.Bytes(), "\n")), nil
}

// rawClaims carries the payload bytes through golang-jwt untouched: the
// claims are decoded once, after the signature verified, with numbers as
// json.Number, and a payload that is valid JSON but not an object becomes
// PGRST303 rather than a decoding failure. It implements jwt.Claims only to
// ride through jwt.Parser; the getters are unused since claims validation is
// switched off there and done in this file.
type rawClaims struct{ raw []byte }

// UnmarshalJSON keeps a copy: the decoder reuses its buffer.
func (c *rawClaims) UnmarshalJSON(b []byte) error {
	c.raw = append(c.raw[:0], b...)
	return nil
}

// GetExpirationTime implements jwt.Claims.
func (*rawClaims) GetExpirationTime() (*jwt.NumericDate, error) { return nil, nil }

// GetIssuedAt implements jwt.Claims.
func (*rawClaims) GetIssuedAt() (*jwt.NumericDate, error) { return nil, nil }

// GetNotBefore implements jwt.Claims.
func (*rawClaims) GetNotBefore() (*jwt.NumericDate, error) { return nil, nil }

// GetIssuer implements jwt.Claims.
func (*rawClaims) GetIssuer() (string, error) { return "", nil }

// GetSubject implements jwt.Claims.
func (*rawClaims) GetSubject() (string, error) { return "", nil }

// GetAudience implements jwt.Claims.
func (*rawClaims) GetAudience() (jwt.ClaimStrings, error) { return nil, nil }
