// Package jwtauth turns a request's Authorization header into the Identity
// the request runs as: it parses the configured keys, verifies tokens with
// the algorithm the key dictates, validates the time and audience claims,
// resolves the role claim and caches verified tokens. It never touches the
// database, so a bad token is refused before a pool connection is taken.
package jwtauth

import (
	"context"
	"slices"
	"time"
)

// Identity is who a request runs as.
type Identity struct {
	// Role is the database role to switch into: the token's role claim, or
	// the anonymous role.
	Role string
	// Claims are the token's claims as decoded JSON (empty for anonymous
	// requests). Executors read them for the legacy per-claim settings.
	// Values are as encoding/json decodes them, except that numbers are
	// json.Number (never float64), so large integers keep every digit. The
	// resolved role is not inserted here (it is Role, and in ClaimsJSON).
	// The map is shared by every request carrying the same token (it is
	// cached): read it, never modify it.
	Claims map[string]any
	// ClaimsJSON is the value of request.jwt.claims: the claims with the
	// resolved role set as "role". It is computed once per token and cached.
	ClaimsJSON string
	// Authenticated is true when the role differs from the anonymous role;
	// it tells 403 from 401 on insufficient_privilege.
	Authenticated bool
	// RoleClaimed is true when Role came from the token's role claim, even
	// one naming the anonymous role; false for a request without a token
	// or with a token without a role claim. Only db_anon_role itself, as
	// the administrator configured it, may run as the authenticator.
	RoleClaimed bool
	// bytes holds Role and ClaimsJSON as bytes, made once per token with
	// them; nil in an Identity made by hand.
	bytes *identityBytes
}

// identityBytes are an Identity's strings as the bytes a statement's
// arguments are: every request with the same token sends the same ones,
// so they are converted once, not per request.
type identityBytes struct {
	role, claimsJSON []byte
	// user is User as an interface value (see UserValue).
	user any
}

// withBytes returns id with its byte forms made.
func (id Identity) withBytes() Identity {
	// Clipped: the slices are shared by every request carrying the same
	// token, and an append to one then copies instead of writing where
	// another request reads.
	id.bytes = &identityBytes{role: slices.Clip([]byte(id.Role)), claimsJSON: slices.Clip([]byte(id.ClaimsJSON)), user: id.User()}
	return id
}

// User is who made the request: the token's sub claim when it is a
// non-empty string, else Role.
func (id Identity) User() string {
	if sub, ok := id.Claims["sub"].(string); ok && sub != "" {
		return sub
	}
	return id.Role
}

// UserValue is User as an interface value, made once per token like the
// byte forms: storing a string in an interface allocates, and an access
// log stores the user of every request.
func (id Identity) UserValue() any {
	user := id.User()
	if b := id.bytes; b != nil {
		if s, ok := b.user.(string); ok && s == user {
			return b.user
		}
	}
	return user
}

// RoleBytes is Role as bytes. The slice is shared by every request
// carrying the same token: read it, never modify it. (The comparison,
// which allocates nothing, keeps a copy of id whose Role was changed
// from sending the old one.)
func (id Identity) RoleBytes() []byte {
	if b := id.bytes; b != nil && string(b.role) == id.Role {
		return b.role
	}
	return []byte(id.Role)
}

// ClaimsJSONBytes is ClaimsJSON as bytes, shared as RoleBytes is.
func (id Identity) ClaimsJSONBytes() []byte {
	if b := id.bytes; b != nil && string(b.claimsJSON) == id.ClaimsJSON {
		return b.claimsJSON
	}
	return []byte(id.ClaimsJSON)
}

// Config is the token configuration, after Caddy placeholders are resolved.
type Config struct {
	// Secret is jwt_secret: an HMAC passphrase, a one-line JWK or JWKS, or
	// "@path" naming a file holding any of these. Empty means no key.
	Secret string
	// SecretIsBase64 says the passphrase is base64 encoded (standard or URL
	// alphabet, padding optional). It does not apply to JWK or JWKS JSON.
	SecretIsBase64 bool
	// Audience, when set, must be the token's aud claim or one of its
	// members. A token without aud is accepted, as in RFC 7519 and PostgREST.
	Audience string
	// RoleClaimKey is the JSON path of the role claim ("$.role" by
	// default): an RFC 9535 query ($.app_metadata.role, $['https://x/role'],
	// $.roles[?search(@, '^app_')]) or the deprecated syntax of PostgREST
	// 14 (.app_metadata.role, ."https://x/role", .roles[?(@ ^== "app_")]).
	RoleClaimKey string
	// CacheMaxEntries bounds the verified-token cache; 0 disables it.
	CacheMaxEntries int
	// CacheMaxLifetime, when more than 0, is how long a verified token
	// stays cached before it is verified again (jwt_cache_max_lifetime).
	CacheMaxLifetime time.Duration
	// AnonRole is db_anon_role; empty means anonymous access is disabled.
	AnonRole string
	// Now is the clock; nil means time.Now. Tests set it.
	Now func() time.Time
	// RemoteKeys, when Secret is a JWKS URL, is that URL's key set,
	// started already and perhaps shared with earlier Verifiers: this one
	// uses its keys, its refresh and its limit on fetches, and fetches
	// nothing at start. Without it, New starts a key set of its own,
	// refreshed until Context is done (nil: never) and fetched as Fetch
	// says.
	RemoteKeys *RemoteKeys
	Context    context.Context
	Fetch      FetchOptions
	// OnCacheLookup, when set, is told of every token looked up in the
	// cache and whether it was found (metrics count both).
	OnCacheLookup func(hit bool)
}
