package jwtauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// maxTokenBytes bounds the token decoded for an unauthenticated client.
// Identity-provider tokens run to a few KiB even with many groups; refusing
// anything longer before decoding caps the base64, JSON and signature work
// one request can cost.
const maxTokenBytes = 16 << 10

// PGRST301 messages, worded as PostgREST words them.
const (
	msgEmptyToken   = "Empty JWT is sent in Authorization header"
	msgBadCrypto    = "JWT cryptographic operation failed"
	msgNoKey        = "No suitable key or wrong key type"
	msgBadAlgorithm = "Wrong or unsupported encoding algorithm"
)

// PGRST301 details. PostgREST passes on the words of its JOSE library
// (jose-jwt) for the failures that carry them: which keys were looked at,
// and the unsecured token.
const (
	detailsNoKeyFound  = "No suitable key was found to decode the JWT"
	detailsNoKeyDecode = "None of the keys was able to decode the JWT"
	detailsUnsecured   = "JWT is unsecured but expected 'alg' was not 'none'"
)

// Verifier authenticates requests with one configuration. It is safe for
// concurrent use.
type Verifier struct {
	// keys holds the current key set: fixed for keys in jwt_secret; for a
	// JWKS URL, remote's, which each refresh replaces.
	keys     *atomic.Pointer[keySet]
	remote   *RemoteKeys
	audience string
	anonRole string
	roleKey  roleClaimKey
	now      func() time.Time
	cache    *tokenCache // nil when disabled
	// cacheMaxLifetime bounds how long a cached token is trusted; 0 means
	// until it expires.
	cacheMaxLifetime time.Duration
	anon             Identity // the identity of requests without a token
	// onCacheLookup is Config.OnCacheLookup, or a no-op.
	onCacheLookup func(hit bool)
}

// New parses the configured keys and role claim path and returns a
// Verifier. Its errors are configuration errors, meant to stop Provision.
func New(cfg Config) (*Verifier, error) {
	keys, remote, err := configuredKeys(cfg)
	if err != nil {
		return nil, err
	}
	roleKey := cfg.RoleClaimKey
	if roleKey == "" {
		roleKey = defaultRoleClaimKey
	}
	key, err := parseRoleClaimKey(roleKey)
	if err != nil {
		return nil, fmt.Errorf("parsing jwt_role_claim_key %q: %w", roleKey, err)
	}
	if cfg.CacheMaxEntries < 0 {
		return nil, fmt.Errorf("checking jwt_cache_max_entries: %d is negative", cfg.CacheMaxEntries)
	}
	v := &Verifier{
		audience: cfg.Audience,
		anonRole: cfg.AnonRole,
		roleKey:  key,
		now:      cfg.Now,

		onCacheLookup: cfg.OnCacheLookup,
	}
	if v.onCacheLookup == nil {
		v.onCacheLookup = func(bool) {}
	}
	v.cacheMaxLifetime = cfg.CacheMaxLifetime
	if v.now == nil {
		v.now = time.Now
	}
	v.keys, v.remote = keys, remote
	if cfg.CacheMaxEntries > 0 {
		v.cache = newTokenCache(cfg.CacheMaxEntries)
	}
	if cfg.AnonRole != "" {
		claims := map[string]any{}
		js, err := claimsJSON(claims, cfg.AnonRole)
		if err != nil {
			return nil, fmt.Errorf("encoding db_anon_role: %w", err)
		}
		v.anon = Identity{Role: cfg.AnonRole, Claims: claims, ClaimsJSON: js}.withBytes()
	}
	return v, nil
}

// configuredKeys returns where the Verifier finds its keys: those of
// jwt_secret, or the key set of its URL, cfg.RemoteKeys or one started
// here.
func configuredKeys(cfg Config) (*atomic.Pointer[keySet], *RemoteKeys, error) {
	if !IsKeySetURL(cfg.Secret) {
		keys, err := loadKeys(cfg.Secret, cfg.SecretIsBase64)
		if err != nil {
			return nil, nil, err
		}
		static := new(atomic.Pointer[keySet])
		static.Store(newKeySet(keys))
		return static, nil, nil
	}
	remote := cfg.RemoteKeys
	if remote == nil {
		ctx := cfg.Context
		if ctx == nil {
			ctx = context.Background()
		}
		var err error
		if remote, err = StartRemoteKeys(ctx, cfg.Secret, cfg.Fetch); err != nil {
			return nil, nil, err
		}
	} else if remote.URL() != cfg.Secret {
		return nil, nil, fmt.Errorf("checking jwt_secret: the key set given is that of %s, not of %s", remote.URL(), cfg.Secret)
	}
	return &remote.keys, remote, nil
}

// Authenticate turns an Authorization header value ("" when absent) into an
// Identity. A header with a scheme other than Bearer is not a token and the
// request runs as the anonymous role, as in PostgREST. The returned
// Identity's Claims map is shared (with the cache) and must not be modified.
func (v *Verifier) Authenticate(authorization string) (Identity, *apierr.Error) {
	token, isBearer := bearerToken(authorization)
	if !isBearer {
		return v.anonymous()
	}
	if token == "" {
		return Identity{}, apierr.JWTDecode(msgEmptyToken, "")
	}
	// Checked before the cache, so an oversized header is not even hashed.
	if len(token) > maxTokenBytes {
		return Identity{}, apierr.JWTDecode("JWT is longer than "+strconv.Itoa(maxTokenBytes)+" bytes", "")
	}
	now := v.now()
	if v.cache != nil {
		e, ok := v.cache.get(token)
		v.onCacheLookup(ok)
		if ok && v.cacheMaxLifetime > 0 && now.Sub(e.cachedAt) >= v.cacheMaxLifetime {
			v.cache.remove(token) // verified again below, as if never seen
		} else if ok {
			if err := e.times.check(now); err != nil {
				v.cache.remove(token)
				return Identity{}, err
			}
			return e.id, nil
		}
	}
	if v.remote == nil && len(v.keys.Load().keys) == 0 {
		return Identity{}, apierr.JWTSecretMissing()
	}
	if n := strings.Count(token, ".") + 1; n != 3 {
		return Identity{}, apierr.JWTDecode("Expected 3 parts in JWT; got "+strconv.Itoa(n), "")
	}
	raw, aerr := v.verifySignature(token)
	if aerr != nil {
		return Identity{}, aerr
	}
	claims, aerr := decodeClaims(raw)
	if aerr != nil {
		return Identity{}, aerr
	}
	times, aerr := readTimeClaims(claims, now)
	if aerr != nil {
		return Identity{}, aerr
	}
	if aerr := checkAudience(claims, v.audience); aerr != nil {
		return Identity{}, aerr
	}
	id, aerr := v.identify(claims)
	if aerr != nil {
		return Identity{}, aerr
	}
	if v.cache != nil {
		v.cache.put(token, cacheEntry{id: id, times: times, cachedAt: now}, now)
	}
	return id, nil
}

// anonymous is the outcome of a request without a token.
func (v *Verifier) anonymous() (Identity, *apierr.Error) {
	if v.anonRole == "" {
		return Identity{}, apierr.JWTTokenRequired()
	}
	return v.anon, nil
}

// bearerToken extracts the token of a Bearer header. isBearer is false for
// an absent header or another scheme.
func bearerToken(authorization string) (token string, isBearer bool) {
	scheme, rest, _ := strings.Cut(authorization, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.Trim(rest, " "), true
}

// tokenHeader is the part of the JOSE header that picks keys.
type tokenHeader struct {
	Alg any `json:"alg"`
	Kid any `json:"kid"`
}

// verifySignature finds the keys that may verify the token and returns the
// payload of the first that does. Key choice looks at the header only to
// narrow the keys (by kid and by the alg's key family); whether the alg is
// acceptable is decided by each key's own algorithm list.
//
// The errors follow PostgREST's: a token that does not parse (a segment
// that is not base64url, a header that is not JSON or names no known
// algorithm) is "JWT cryptographic operation failed"; alg "none" is "Wrong
// or unsupported encoding algorithm"; a parsed token that no key may
// verify, or that none of them verifies, is "No suitable key or wrong key
// type", the details telling the two apart.
func (v *Verifier) verifySignature(token string) ([]byte, *apierr.Error) {
	alg, kid, ok := decodeHeader(token[:strings.IndexByte(token, '.')])
	if !ok {
		return nil, apierr.JWTDecode(msgBadCrypto, "")
	}
	if alg == "none" {
		return nil, apierr.JWTDecode(msgBadAlgorithm, detailsUnsecured)
	}
	family, supported := algFamily[alg]
	if !supported || !segmentsDecode(token) {
		return nil, apierr.JWTDecode(msgBadCrypto, "")
	}
	ks := v.keys.Load()
	if v.remote != nil && kid != "" && !ks.hasKid(kid) {
		// A kid the set lacks: the provider may have rotated its keys.
		v.remote.refreshForKid(context.Background())
		ks = v.keys.Load()
	}
	byKid := kid != "" && ks.kidKeys
	tried := false
	for _, k := range ks.keys {
		if (byKid && k.kid != kid) || k.family != family || !k.allows(alg) {
			continue
		}
		tried = true
		if raw, err := k.verify(token); err == nil {
			return raw, nil
		}
	}
	if tried {
		return nil, apierr.JWTDecode(msgNoKey, detailsNoKeyDecode)
	}
	return nil, apierr.JWTDecode(msgNoKey, detailsNoKeyFound)
}

// segmentsDecode says whether the payload and signature are base64url, as
// a token must be to parse at all; the header was decoded already.
func segmentsDecode(token string) bool {
	first, last := strings.IndexByte(token, '.'), strings.LastIndexByte(token, '.')
	enc := base64.RawURLEncoding
	_, errPayload := enc.DecodeString(token[first+1 : last])
	_, errSig := enc.DecodeString(token[last+1:])
	return errPayload == nil && errSig == nil
}

// DeprecatedRoleClaimKey reports whether jwt_role_claim_key is in the
// deprecated syntax of PostgREST 14 and before, and returns it as
// PostgREST's deprecation warning shows it (."roles"[0]).
func (v *Verifier) DeprecatedRoleClaimKey() (string, bool) {
	if v.roleKey.path != nil {
		return "", false
	}
	return v.roleKey.deprecated.String(), true
}

// decodeHeader reads alg and kid. A kid that is not a string names no key
// and is ignored; an alg that is not a string is returned as "", which no key
// accepts.
func decodeHeader(seg string) (alg, kid string, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return "", "", false
	}
	var h tokenHeader
	if err := json.Unmarshal(b, &h); err != nil {
		return "", "", false
	}
	alg, _ = h.Alg.(string)
	kid, _ = h.Kid.(string)
	return alg, kid, true
}

// identify resolves the role and builds the Identity of verified claims.
func (v *Verifier) identify(claims map[string]any) (Identity, *apierr.Error) {
	role, claimed := v.anonRole, false
	// A null role counts as absent, as null exp/nbf/iat do.
	if val, found := v.roleKey.lookup(claims); found && val != nil {
		s, isString := val.(string)
		// An empty role would reach SET ROLE as "" and fail there, or worse;
		// it is the token that is wrong.
		if !isString || s == "" {
			return Identity{}, apierr.JWTClaims(msgRoleNotString)
		}
		role, claimed = s, true
	}
	if role == "" {
		return Identity{}, apierr.JWTTokenRequired()
	}
	js, err := claimsJSON(claims, role)
	if err != nil {
		return Identity{}, apierr.JWTClaims(msgClaimsParse)
	}
	return Identity{Role: role, Claims: claims, ClaimsJSON: js, Authenticated: role != v.anonRole, RoleClaimed: claimed}.withBytes(), nil
}
