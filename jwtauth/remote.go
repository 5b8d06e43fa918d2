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
//     retried after retryAfterFailure.
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

// isJWKSURL says jwt_secret names a key set to fetch rather than holding
// keys. http:// is recognised here to be refused with a clear message.
func isJWKSURL(secret string) bool {
	return strings.HasPrefix(secret, "https://") || strings.HasPrefix(secret, "http://")
}

// remoteKeys fetches and refreshes the key set of a URL into a Verifier.
type remoteKeys struct {
	url     string
	client  *http.Client
	store   func(*keySet)
	onError func(error)
	now     func() time.Time

	// fetchMu makes one fetch at a time; requests that find a fetch
	// running wait for it and share its result.
	fetchMu sync.Mutex
	// lastKidFetch is when an unknown kid last caused a fetch (unix ns).
	lastKidFetch atomic.Int64
}

// fetch reads the key set once, stores it and returns how long it may be
// cached.
func (r *remoteKeys) fetch(ctx context.Context) (time.Duration, error) {
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
	if err != nil {
		return 0, fmt.Errorf("fetching the JWKS %s: %w", r.url, err)
	}
	r.store(newKeySet(keys))
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
func (r *remoteKeys) run(ctx context.Context, wait time.Duration) {
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
func (r *remoteKeys) refreshForKid(ctx context.Context) {
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

// startRemoteKeys fetches the set at url once and keeps it fresh in the
// background until ctx is done. A failed first fetch is reported and
// retried in the background: the server starts and refuses tokens (no key)
// until the provider answers.
func startRemoteKeys(ctx context.Context, url string, client *http.Client, store func(*keySet), onError func(error)) (*remoteKeys, error) {
	if !strings.HasPrefix(url, "https://") {
		return nil, errors.New("checking jwt_secret: a JWKS URL must use https://, so the keys cannot be swapped on the way")
	}
	if client == nil {
		client = &http.Client{Timeout: fetchTimeout}
	}
	if onError == nil {
		onError = func(error) {}
	}
	r := &remoteKeys{url: url, client: client, store: store, onError: onError, now: time.Now}
	wait, err := r.fetch(ctx)
	if err != nil {
		onError(err)
		wait = retryAfterFailure
	}
	go r.run(ctx, wait)
	return r, nil
}
