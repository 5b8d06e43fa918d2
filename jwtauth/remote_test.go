package jwtauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// jwksServer serves a key set over TLS that the test can change, and
// counts the fetches.
type jwksServer struct {
	*httptest.Server
	mu           sync.Mutex
	body         string
	cacheControl string
	status       int
	fetches      atomic.Int32
}

func newJWKSServer(t *testing.T, body string) *jwksServer {
	s := &jwksServer{body: body, status: http.StatusOK}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.cacheControl != "" {
			w.Header().Set("Cache-Control", s.cacheControl)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.status)
		_, _ = w.Write([]byte(s.body))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) set(body string, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.body, s.status = body, status
}

// remoteVerifier makes a Verifier of srv's key set; failed fetches are
// collected.
func remoteVerifier(t *testing.T, srv *jwksServer) (*Verifier, *[]error) {
	t.Helper()
	v, errs, _ := urlVerifier(t, srv.URL+"/.well-known/jwks.json", srv.Client())
	return v, errs
}

// urlVerifier makes a Verifier of the key set at url, fetched with client;
// failed fetches and warnings are collected.
func urlVerifier(t *testing.T, url string, client *http.Client) (v *Verifier, errs, warnings *[]error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	errs, warnings = collector()
	v = newVerifier(t, Config{Secret: url, Context: ctx, Fetch: fetchOptions(client, errs, warnings)})
	return v, errs, warnings
}

// collector makes the lists that fetchOptions fills.
func collector() (errs, warnings *[]error) { return &[]error{}, &[]error{} }

// fetchOptions fetch with client and collect failures and warnings.
func fetchOptions(client *http.Client, errs, warnings *[]error) FetchOptions {
	var mu sync.Mutex
	add := func(to *[]error) func(error) {
		return func(err error) {
			mu.Lock()
			defer mu.Unlock()
			*to = append(*to, err)
		}
	}
	return FetchOptions{HTTPClient: client, OnError: add(errs), OnWarning: add(warnings)}
}

func rs256(t *testing.T, kid string, key any) string {
	return "Bearer " + sign(t, jwt.SigningMethodRS256, key, jwt.MapClaims{"role": "author"}, map[string]any{"kid": kid})
}

func TestJWKSFromURL(t *testing.T) {
	k := testKeys()
	keyA := rsaJWK(&k.rsaA.PublicKey, map[string]any{"kid": "a", "alg": "RS256"})
	keyB := rsaJWK(&k.rsaB.PublicKey, map[string]any{"kid": "b", "alg": "RS256"})

	t.Run("fetched at start; a rotation is picked up on the new kid", func(t *testing.T) {
		srv := newJWKSServer(t, jwks(keyA))
		v, errs := remoteVerifier(t, srv)
		id, err := v.Authenticate(rs256(t, "a", k.rsaA))
		expect(t, id, err, ok("author", true))
		// The provider rotates: b is published, a withdrawn. The first
		// token signed with b makes pgrest fetch at once.
		srv.set(jwks(keyB), http.StatusOK)
		id, err = v.Authenticate(rs256(t, "b", k.rsaB))
		expect(t, id, err, ok("author", true))
		if n := srv.fetches.Load(); n != 2 {
			t.Errorf("%d fetches, want 2 (start, unknown kid)", n)
		}
		if len(*errs) != 0 {
			t.Errorf("fetch errors: %v", *errs)
		}
	})

	t.Run("unknown kids fetch at most once per interval", func(t *testing.T) {
		srv := newJWKSServer(t, jwks(keyA))
		v, _ := remoteVerifier(t, srv)
		for i := range 20 {
			_, err := v.Authenticate(rs256(t, "made-up-"+string(rune('a'+i)), k.rsaB))
			if err == nil || err.Code != "PGRST301" {
				t.Fatalf("a token with an unknown kid = %v, want PGRST301", err)
			}
		}
		if n := srv.fetches.Load(); n != 2 {
			t.Errorf("%d fetches for 20 unknown kids, want 2 (start, one refresh)", n)
		}
	})

	t.Run("a failed fetch keeps the last good keys and is reported", func(t *testing.T) {
		srv := newJWKSServer(t, jwks(keyA))
		v, errs := remoteVerifier(t, srv)
		srv.set("", http.StatusBadGateway)
		// An unknown kid forces a fetch, which fails.
		if _, err := v.Authenticate(rs256(t, "b", k.rsaB)); err == nil {
			t.Fatal("a token of an unpublished key was accepted")
		}
		if len(*errs) != 1 || !strings.Contains((*errs)[0].Error(), "502") {
			t.Fatalf("fetch errors = %v, want one naming the 502", *errs)
		}
		id, err := v.Authenticate(rs256(t, "a", k.rsaA))
		expect(t, id, err, ok("author", true))
	})

	t.Run("provider down at start: tokens refused until it answers", func(t *testing.T) {
		srv := newJWKSServer(t, "")
		srv.set("", http.StatusServiceUnavailable)
		v, errs := remoteVerifier(t, srv)
		if len(*errs) != 1 {
			t.Fatalf("fetch errors at start = %v, want 1", *errs)
		}
		_, err := v.Authenticate(rs256(t, "a", k.rsaA))
		if err == nil || err.Code != "PGRST301" {
			t.Fatalf("with no keys yet = %v, want PGRST301", err)
		}
		srv.set(jwks(keyA), http.StatusOK)
		// The next unknown-kid fetch is allowed after the interval.
		v.remote.lastKidFetch.Store(time.Now().Add(-unknownKidInterval).UnixNano())
		id, err := v.Authenticate(rs256(t, "a", k.rsaA))
		expect(t, id, err, ok("author", true))
	})

	t.Run("http URLs are refused", func(t *testing.T) {
		if _, err := New(Config{Secret: "http://idp.example.com/jwks.json"}); err == nil || !strings.Contains(err.Error(), "https") {
			t.Fatalf("New with an http JWKS URL = %v, want an error asking for https", err)
		}
	})
}

func TestCacheLifetime(t *testing.T) {
	for header, want := range map[string]time.Duration{
		"":                                      defaultRefresh,
		"max-age=600":                           10 * time.Minute,
		"public, max-age=3600, must-revalidate": time.Hour,
		"max-age=1":                             minRefresh,
		"max-age=99999999":                      maxRefresh,
		"no-store":                              minRefresh,
		"s-maxage=120":                          2 * time.Minute,
		"max-age=abc":                           defaultRefresh,
	} {
		if got := cacheLifetime(header); got != want {
			t.Errorf("cacheLifetime(%q) = %s, want %s", header, got, want)
		}
	}
}
