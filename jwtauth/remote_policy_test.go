package jwtauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

func TestJWKSRedirects(t *testing.T) {
	k := testKeys()
	provider := jwks(rsaJWK(&k.rsaA.PublicKey, map[string]any{"kid": "provider", "alg": "RS256"}))
	attacker := jwks(rsaJWK(&k.rsaB.PublicKey, map[string]any{"kid": "attacker", "alg": "RS256"}))
	// Whoever answers a plain http:// request can serve any keys.
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(attacker))
	}))
	t.Cleanup(plain.Close)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-http":
			http.Redirect(w, r, plain.URL+"/jwks.json", http.StatusFound)
		case "/moved":
			http.Redirect(w, r, "/jwks.json", http.StatusMovedPermanently)
		default:
			_, _ = w.Write([]byte(provider))
		}
	}))
	t.Cleanup(srv.Close)

	t.Run("a redirect to http:// fails the fetch", func(t *testing.T) {
		v, errs, _ := urlVerifier(t, srv.URL+"/to-http", srv.Client())
		if len(*errs) != 1 || !strings.Contains((*errs)[0].Error(), "refusing the redirect to "+plain.URL) {
			t.Fatalf("fetch errors = %v, want one refusing the redirect to %s", *errs, plain.URL)
		}
		_, err := v.Authenticate(rs256(t, "attacker", k.rsaB))
		if err == nil || err.Code != "PGRST301" {
			t.Fatalf("a token of the keys served over http = %v, want PGRST301", err)
		}
	})

	t.Run("a redirect within https is followed", func(t *testing.T) {
		v, errs, _ := urlVerifier(t, srv.URL+"/moved", srv.Client())
		id, err := v.Authenticate(rs256(t, "provider", k.rsaA))
		expect(t, id, err, ok("author", true))
		if len(*errs) != 0 {
			t.Errorf("fetch errors: %v", *errs)
		}
	})

	t.Run("the client's own redirect policy still applies", func(t *testing.T) {
		client := srv.Client()
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		_, errs, _ := urlVerifier(t, srv.URL+"/moved", client)
		if len(*errs) != 1 || !strings.Contains((*errs)[0].Error(), "301") {
			t.Fatalf("fetch errors = %v, want one naming the 301 the client stopped at", *errs)
		}
	})
}

func TestJWKSSymmetricKeysFromURL(t *testing.T) {
	k := testKeys()
	public := rsaJWK(&k.rsaA.PublicKey, map[string]any{"kid": "a", "alg": "RS256"})
	octKey := []byte(testSecret)
	oct := octJWK(octKey, map[string]any{"kid": "shared", "alg": "HS256"})
	// Anyone who read the published set can sign this.
	forged := "Bearer " + sign(t, jwt.SigningMethodHS256, octKey, jwt.MapClaims{"role": "author"}, map[string]any{"kid": "shared"})

	t.Run("ignored beside public keys, with one warning", func(t *testing.T) {
		srv := newJWKSServer(t, jwks(public, oct))
		v, errs, warnings := urlVerifier(t, srv.URL, srv.Client())
		_, err := v.Authenticate(forged)
		if err == nil || err.Code != "PGRST301" {
			t.Fatalf("a token signed with the published symmetric key = %v, want PGRST301", err)
		}
		id, err := v.Authenticate(rs256(t, "a", k.rsaA))
		expect(t, id, err, ok("author", true))
		if len(*errs) != 0 {
			t.Errorf("fetch errors: %v", *errs)
		}
		// The forged token's kid made a second fetch: the same keys
		// ignored again are not warned of again.
		if n := srv.fetches.Load(); n != 2 {
			t.Errorf("%d fetches, want 2 (start, the forged token's kid)", n)
		}
		if len(*warnings) != 1 || !strings.Contains((*warnings)[0].Error(), `"shared"`) {
			t.Errorf("warnings = %v, want one naming the kid \"shared\"", *warnings)
		}
	})

	t.Run("alone: no usable key", func(t *testing.T) {
		srv := newJWKSServer(t, jwks(oct))
		v, errs, _ := urlVerifier(t, srv.URL, srv.Client())
		if len(*errs) != 1 || !strings.Contains((*errs)[0].Error(), "no usable key") {
			t.Fatalf("fetch errors = %v, want one saying there is no usable key", *errs)
		}
		_, err := v.Authenticate(forged)
		if err == nil || err.Code != "PGRST301" {
			t.Fatalf("a token signed with the published symmetric key = %v, want PGRST301", err)
		}
	})

	t.Run("a set turning symmetric keeps the last good keys", func(t *testing.T) {
		srv := newJWKSServer(t, jwks(public))
		v, errs, _ := urlVerifier(t, srv.URL, srv.Client())
		srv.set(jwks(oct), http.StatusOK)
		if _, err := v.Authenticate(forged); err == nil {
			t.Fatal("a token signed with the published symmetric key was accepted")
		}
		if len(*errs) != 1 {
			t.Errorf("fetch errors = %v, want 1", *errs)
		}
		id, err := v.Authenticate(rs256(t, "a", k.rsaA))
		expect(t, id, err, ok("author", true))
	})

	t.Run("jwt_secret holding a symmetric JWK still verifies", func(t *testing.T) {
		v := newVerifier(t, Config{Secret: oct})
		id, err := v.Authenticate(forged)
		expect(t, id, err, ok("author", true))
	})
}

func TestSharedRemoteKeys(t *testing.T) {
	k := testKeys()
	srv := newJWKSServer(t, jwks(rsaJWK(&k.rsaA.PublicKey, map[string]any{"kid": "a", "alg": "RS256"})))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	errs, warnings := collector()
	remote, err := StartRemoteKeys(ctx, srv.URL, fetchOptions(srv.Client(), errs, warnings))
	if err != nil {
		t.Fatal(err)
	}
	verifier := func() *Verifier { return newVerifier(t, Config{Secret: srv.URL, RemoteKeys: remote}) }

	// A rebuilt configuration: each new Verifier uses the keys fetched.
	for range 20 {
		id, err := verifier().Authenticate(rs256(t, "a", k.rsaA))
		expect(t, id, err, ok("author", true))
	}
	if n := srv.fetches.Load(); n != 1 {
		t.Errorf("%d fetches for 20 Verifiers sharing a key set, want 1", n)
	}

	// The provider fails: a Verifier built now still has the last keys.
	srv.set("", http.StatusInternalServerError)
	id, aerr := verifier().Authenticate(rs256(t, "a", k.rsaA))
	expect(t, id, aerr, ok("author", true))

	// Unknown kids are limited across the Verifiers, not per Verifier.
	for i := range 5 {
		if _, err := verifier().Authenticate(rs256(t, "made-up-"+string(rune('a'+i)), k.rsaB)); err == nil {
			t.Fatal("a token of an unknown kid was accepted")
		}
	}
	if n := srv.fetches.Load(); n != 2 {
		t.Errorf("%d fetches after 5 Verifiers saw unknown kids, want 2 (start, one refresh)", n)
	}

	if _, err := New(Config{Secret: srv.URL + "/other", RemoteKeys: remote}); err == nil ||
		!strings.Contains(err.Error(), "not of "+srv.URL+"/other") {
		t.Errorf("New with the key set of another URL = %v, want an error naming both", err)
	}
}
