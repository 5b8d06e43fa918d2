package realtime

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// Authenticator verifies an Authorization header value ("" for none) with
// REST's verifier (jwtauth.Verifier.Authenticate), so a socket's token is
// taken or refused exactly as a request's.
type Authenticator func(authorization string) (jwtauth.Identity, *apierr.Error)

// identity is who a channel acts as: the verified identity and the
// token's expiry (zero when it has none, or for an anonymous socket).
type identity struct {
	jwtauth.Identity
	token string
	exp   time.Time
}

// authenticate verifies token ("" or an opaque key such as Supabase's
// sb_publishable_… for an anonymous socket).
func (srv *Server) authenticate(token string) (identity, *tokenError) {
	header := ""
	if token != "" && !isOpaqueKey(token) {
		header = "Bearer " + token
	}
	if header != "" && !wellFormed(token) {
		// The verifier calls a token whose parts do not decode a failed
		// cryptographic operation; Supabase calls it malformed.
		return identity{}, tokenErrorOf(&apierr.Error{Code: "PGRST301"}, token)
	}
	id, aerr := srv.cfg.Authenticate(header)
	if aerr != nil {
		return identity{}, tokenErrorOf(aerr, token)
	}
	out := identity{Identity: id, token: token}
	if n, ok := id.Claims["exp"].(json.Number); ok {
		if secs, err := n.Float64(); err == nil {
			out.exp = time.Unix(int64(secs), 0)
		}
	}
	return out, nil
}

// isOpaqueKey says a key is no JWT: Supabase's new API keys
// (sb_publishable_…, sb_secret_…) are not, and Supabase's realtime takes
// such a key for the project's own (user_socket.ex, realtime_channel.ex
// assign_access_token), which for pgrest is an anonymous socket.
func isOpaqueKey(token string) bool {
	return strings.HasPrefix(token, "sb_") || strings.Count(token, ".") != 2
}

// tokenError is a token refused, in Supabase's words: code is the
// channel error's prefix (log_error's code), message its text.
type tokenError struct {
	code, message string
	// status and connect are what the WebSocket upgrade answers
	// (user_socket.ex's error_response).
	status  int
	connect string
}

// reason is the join's error reply: "Code: message", as log_error builds
// it (lib/realtime_web/channels/realtime_channel/logging.ex).
func (e *tokenError) reason() string { return e.code + ": " + e.message }

// tokenErrorOf turns the verifier's error into Supabase's, from
// lib/realtime_web/channels/realtime_channel.ex (join's else branch),
// lib/realtime_web/channels/auth/channels_authorization.ex ("Token has
// expired N seconds ago") and lib/realtime_web/channels/user_socket.ex
// (the upgrade's answers).
func tokenErrorOf(aerr *apierr.Error, token string) *tokenError {
	switch {
	case aerr.Code == "PGRST302":
		return &tokenError{code: "MissingAPIKey", message: "API key is missing or not a valid string",
			status: 401, connect: "API key is missing"}
	case aerr.Code == "PGRST303" && strings.Contains(aerr.Message, "expired"):
		return expiredError(unverifiedExp(token))
	case aerr.Code == "PGRST301" && (aerr.Message == "JWT cryptographic operation failed" ||
		aerr.Message == "No suitable key or wrong key type"):
		// The verifier's words for a signature that does not verify, or
		// no key that could verify it (jwtauth/verifier.go).
		return &tokenError{code: "JwtSignatureError", message: "Failed to validate JWT signature",
			status: 401, connect: "Failed to validate JWT signature"}
	case aerr.Code == "PGRST300":
		return &tokenError{code: "JwtSignerError", message: "Failed to generate JWT signer, check your JWT secret or JWKS configuration",
			status: 401, connect: "Failed to generate JWT signer, check your JWT secret or JWKS configuration"}
	case aerr.Code == "PGRST303":
		// nbf, iat or aud refused: Supabase's Joken answers these with its
		// generic error; the verifier's message says which.
		return &tokenError{code: "InvalidJWTToken", message: aerr.Message, status: 401, connect: aerr.Message}
	default:
		return &tokenError{code: "MalformedJWT", message: "The token provided is not a valid JWT",
			status: 401, connect: "The token provided is not a valid JWT"}
	}
}

// expiredError is Supabase's text for a token expired exp ago.
func expiredError(exp time.Time) *tokenError {
	ago := int64(0)
	if !exp.IsZero() {
		ago = max(0, time.Now().Unix()-exp.Unix())
	}
	msg := "Token has expired " + strconv.FormatInt(ago, 10) + " seconds ago"
	return &tokenError{code: "InvalidJWTToken", message: msg, status: 401, connect: "Token has expired"}
}

// unverifiedExp reads the exp claim of a token the verifier refused as
// expired, only to say how long ago it expired.
func unverifiedExp(token string) time.Time {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return time.Time{}
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return time.Time{}
	}
	var claims struct {
		Exp json.Number `json:"exp"`
	}
	if json.Unmarshal(raw, &claims) != nil {
		return time.Time{}
	}
	f, err := claims.Exp.Float64()
	if err != nil {
		return time.Time{}
	}
	return time.Unix(int64(f), 0)
}

// wellFormed says whether a JWT's header and claims decode to JSON
// objects.
func wellFormed(token string) bool {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts[:2] {
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(p, "="))
		if err != nil {
			return false
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return false
		}
	}
	return true
}
