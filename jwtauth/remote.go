package jwtauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A JWKS published at a URL (jwt_secret https://idp.example.com/.well-known/
// jwks.json), as Supabase and identity providers publish them, is fetched at
// start and kept fresh without a restart:
//
//   - in the background, when the answer's Cache-Control max-age runs out
//     (clamped between minRefresh and maxRefresh; defaultRefresh when the
//     answer gives none);
//   - at once when a token names a kid the set lacks (a rotation the cache
//     has not seen), at most once per unknownKidInterval, so tokens with
//     made-up kids cannot make pgrest hammer the provider;
//   - a failed fetch keeps the last good keys and is reported, then
//     retried after retryAfterFailure;
//   - a configuration rebuilt with the same URL takes the same RemoteKeys,
//     so a reload neither fetches nor starts without keys.
//
// Where a set may come from and what it may hold: remote_policy.go.
const (
	defaultRefresh     = 5 * time.Minute
	minRefresh         = 30 * time.Second
	maxRefresh         = 24 * time.Hour
	retryAfterFailure  = 10 * time.Second
	unknownKidInterval = 5 * time.Second
	fetchTimeout       = 10 * time.Second
	// maxJWKSBytes bounds the fetched document; real key sets are a few
	// KiB.
	maxJWKSBytes = 1 << 20
)

// keySet is one immutable set of verification keys.
type keySet struct {
	keys []*verifyKey
	// kidKeys is true when some key has a kid; only then does a token's kid
	// narrow the keys tried.
	kidKeys bool
}

func newKeySet(keys []*verifyKey) *keySet {
	ks := &keySet{keys: keys}
	for _, k := range keys {
		ks.kidKeys = ks.kidKeys || k.kid != ""
	}
	return ks
}

// hasKid reports whether a key of the set has the kid.
func (ks *keySet) hasKid(kid string) bool {
	for _, k := range ks.keys {
		if k.kid == kid {
			return true
		}
	}
	return false
}

// IsKeySetURL says jwt_secret names a key set to fetch (a JWKS URL) rather
// than holding keys. http:// is recognised here to be refused with a clear
// message.
func IsKeySetURL(secret string) bool {
	return strings.HasPrefix(secret, "https://") || strings.HasPrefix(secret, "http://")
}

// RemoteKeys is the key set published at a JWKS URL, fetched and kept
// fresh in the background. Verifiers built with the same RemoteKeys
// (Config.RemoteKeys) share its keys, its refresh and its limit on fetches
// for unknown kids: a configuration rebuilt with the same URL neither
// fetches again at once nor starts without the keys fetched already.
type RemoteKeys struct {
	url       string
	client    *http.Client
	onError   func(error)
	onWarning func(error)
	now       func() time.Time

	// keys is the last good set; the Verifiers read it.
	keys atomic.Pointer[keySet]
	// fetchMu makes one fetch at a time; requests that find a fetch
	// running wait for it and share its result. It also guards
	// lastIgnored.
	fetchMu sync.Mutex
	// lastKidFetch is when an unknown kid last caused a fetch (unix ns).
	lastKidFetch atomic.Int64
	// lastIgnored describes the keys the last fetch ignored, so that the
	// warning is given when they change rather than at every refresh.
	lastIgnored string
}

// FetchOptions say how a key set URL is fetched and whom to tell what.
type FetchOptions struct {
	// HTTPClient fetches the set (nil: a default client). Whatever its own
	// policy, a redirect is followed only to an https:// URL.
	HTTPClient *http.Client
	// OnError is told of each failed fetch (the last good keys stay in
	// use).
	OnError func(error)
	// OnWarning is told when the set holds keys that are ignored: keys
	// pgrest would verify with but that a published set must not hold.
	OnWarning func(error)
}

// URL is the address the key set is fetched from.
func (r *RemoteKeys) URL() string { return r.url }

// fetch reads the key set once, stores it and returns how long it may be
// cached.
func (r *RemoteKeys) fetch(ctx context.Context) (time.Duration, error) {
	r.fetchMu.Lock()
	defer r.fetchMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	res, err := r.client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("fetching the JWKS %s: %w", r.url, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("fetching the JWKS %s: status %s", r.url, res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxJWKSBytes+1))
	if err != nil {
		return 0, fmt.Errorf("fetching the JWKS %s: %w", r.url, err)
	}
	if len(body) > maxJWKSBytes {
		return 0, fmt.Errorf("fetching the JWKS %s: larger than %d bytes", r.url, maxJWKSBytes)
	}
	keys, err := parseJWKJSON(body)
	if err == nil {
		keys, err = r.publicKeys(keys)
	}
	if err != nil {
		return 0, fmt.Errorf("fetching the JWKS %s: %w", r.url, err)
	}
	r.keys.Store(newKeySet(keys))
	return cacheLifetime(res.Header.Get("Cache-Control")), nil
}

// cacheLifetime is how long an answer with this Cache-Control may be kept:
// its max-age clamped, or defaultRefresh. no-cache and no-store ask for
// the shortest wait.
func cacheLifetime(cacheControl string) time.Duration {
	for _, directive := range strings.Split(cacheControl, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(directive), "=")
		switch strings.ToLower(name) {
		case "no-cache", "no-store":
			return minRefresh
		case "max-age", "s-maxage":
			secs, err := strconv.ParseInt(strings.Trim(value, `"`), 10, 64)
			if err != nil || secs < 0 {
				continue
			}
			return min(max(time.Duration(secs)*time.Second, minRefresh), maxRefresh)
		}
	}
	return defaultRefresh
}

// run refreshes the set until ctx is done: after the cache lifetime, or
// sooner after a failure.
func (r *RemoteKeys) run(ctx context.Context, wait time.Duration) {
	for {
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		lifetime, err := r.fetch(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			r.onError(err)
			wait = retryAfterFailure
			continue
		}
		wait = lifetime
	}
}

// refreshForKid fetches the set at once for a token whose kid it lacks,
// unless an unknown kid caused a fetch within unknownKidInterval; then it
// only waits for a fetch under way, whose keys the token may need.
func (r *RemoteKeys) refreshForKid(ctx context.Context) {
	now := r.now().UnixNano()
	last := r.lastKidFetch.Load()
	if now-last < int64(unknownKidInterval) || !r.lastKidFetch.CompareAndSwap(last, now) {
		r.fetchMu.Lock()
		r.fetchMu.Unlock() //nolint:staticcheck // an empty critical section: waiting is the point
		return
	}
	if _, err := r.fetch(ctx); err != nil {
		r.onError(err)
	}
}

// StartRemoteKeys fetches the set at url once and keeps it fresh in the
// background until ctx is done. A failed first fetch is reported and
// retried in the background: tokens are refused (no key) until the
// provider answers. Only an https:// url is accepted.
func StartRemoteKeys(ctx context.Context, url string, opts FetchOptions) (*RemoteKeys, error) {
	if !strings.HasPrefix(url, "https://") {
		return nil, errors.New("checking jwt_secret: a JWKS URL must use https://, so the keys cannot be swapped on the way")
	}
	r := &RemoteKeys{url: url, client: httpsOnly(opts.HTTPClient), onError: opts.OnError, onWarning: opts.OnWarning, now: time.Now}
	if r.onError == nil {
		r.onError = func(error) {}
	}
	if r.onWarning == nil {
		r.onWarning = func(error) {}
	}
	r.keys.Store(newKeySet(nil))
	wait, err := r.fetch(ctx)
	if err != nil {
		r.onError(err)
		wait = retryAfterFailure
	}
	go r.run(ctx, wait)
	return r, nil
}
