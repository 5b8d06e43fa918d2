// Package jwtauth turns a request's Authorization header into the Identity
// the request runs as: it parses the configured keys, verifies tokens with
// the algorithm the key dictates, validates the time and audience claims,
// resolves the role claim and caches verified tokens. It never touches the
// database, so a bad token is refused before a pool connection is taken.
package jwtauth

import "time"

// Identity is who a request runs as.
type Identity struct {
	// Role is the database role to switch into: the token's role claim, or
	// the anonymous role.
	Role string
	// Claims are the token's claims as decoded JSON (empty for anonymous
	// requests). Executors read them for the legacy per-claim settings.
	Claims map[string]any
	// ClaimsJSON is the value of request.jwt.claims: the claims with the
	// resolved role set as "role". It is computed once per token and cached.
	ClaimsJSON string
	// Authenticated is true when the role differs from the anonymous role;
	// it tells 403 from 401 on insufficient_privilege.
	Authenticated bool
}

// Config is the token configuration, after Caddy placeholders are resolved.
type Config struct {
	// Secret is jwt_secret: an HMAC passphrase, a one-line JWK or JWKS, or
	// "@path" naming a file holding any of these. Empty means no key.
	Secret string
	// SecretIsBase64 says the passphrase is base64 encoded.
	SecretIsBase64 bool
	// Audience, when set, must appear in the token's aud claim.
	Audience string
	// RoleClaimKey is the JSON path of the role claim (".role" by default).
	RoleClaimKey string
	// CacheMaxEntries bounds the verified-token cache; 0 disables it.
	CacheMaxEntries int
	// AnonRole is db_anon_role; empty means anonymous access is disabled.
	AnonRole string
	// Now is the clock; nil means time.Now. Tests set it.
	Now func() time.Time
}
