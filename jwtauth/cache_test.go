package jwtauth

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// clock is a settable clock, safe to read from many goroutines.
type clock struct{ unix atomic.Int64 }

func newClock(t time.Time) *clock {
	c := &clock{}
	c.unix.Store(t.Unix())
	return c
}

func (c *clock) now() time.Time          { return time.Unix(c.unix.Load(), 0) }
func (c *clock) advance(d time.Duration) { c.unix.Add(int64(d / time.Second)) }

func TestCache(t *testing.T) {
	t.Run("a cached token is served without verifying again", func(t *testing.T) {
		v := newVerifier(t, Config{Secret: testSecret, CacheMaxEntries: 10})
		tok := "Bearer " + hs256(t, jwt.MapClaims{"role": "author"})
		first, err := v.Authenticate(tok)
		expect(t, first, err, ok("author", true))
		v.keys.Store(newKeySet(nil)) // a miss would now answer PGRST300
		second, err := v.Authenticate(tok)
		expect(t, second, err, ok("author", true))
		if second.ClaimsJSON != first.ClaimsJSON {
			t.Fatalf("cached ClaimsJSON %s, want %s", second.ClaimsJSON, first.ClaimsJSON)
		}
	})
	t.Run("a cached token is refused once it expires and is evicted", func(t *testing.T) {
		c := newClock(t0)
		v := newVerifier(t, Config{Secret: testSecret, CacheMaxEntries: 10, Now: c.now})
		tok := "Bearer " + hs256(t, jwt.MapClaims{"role": "author", "exp": t0.Unix() + 60})
		id, err := v.Authenticate(tok)
		expect(t, id, err, ok("author", true))
		c.advance(80 * time.Second) // 20 s past exp: still inside the skew
		id, err = v.Authenticate(tok)
		expect(t, id, err, ok("author", true))
		c.advance(20 * time.Second) // 40 s past exp
		id, err = v.Authenticate(tok)
		expect(t, id, err, fails("PGRST303", "JWT expired"))
		if n := v.cache.len(); n != 0 {
			t.Fatalf("cache holds %d entries after expiry, want 0", n)
		}
	})
	t.Run("a cached token is checked against nbf again when the clock goes back", func(t *testing.T) {
		c := newClock(t0)
		v := newVerifier(t, Config{Secret: testSecret, CacheMaxEntries: 10, Now: c.now})
		tok := "Bearer " + hs256(t, jwt.MapClaims{"role": "author", "nbf": t0.Unix()})
		id, err := v.Authenticate(tok)
		expect(t, id, err, ok("author", true))
		c.advance(-time.Minute)
		id, err = v.Authenticate(tok)
		expect(t, id, err, fails("PGRST303", "JWT not yet valid"))
	})
	t.Run("failures are not cached", func(t *testing.T) {
		v := newVerifier(t, Config{Secret: testSecret, CacheMaxEntries: 10})
		bad := []string{
			"Bearer " + hs256(t, jwt.MapClaims{"role": 5}),
			"Bearer " + hs256(t, jwt.MapClaims{"exp": "x"}),
			"Bearer a.b.c",
			"Bearer " + hs256(t, jwt.MapClaims{}), // no role and no anonymous role
		}
		for _, h := range bad {
			if _, err := v.Authenticate(h); err == nil {
				t.Fatalf("%s was accepted", h)
			}
		}
		if n := v.cache.len(); n != 0 {
			t.Fatalf("cache holds %d entries, want 0", n)
		}
	})
	t.Run("a zero bound disables the cache", func(t *testing.T) {
		v := newVerifier(t, Config{Secret: testSecret})
		if v.cache != nil {
			t.Fatal("cache is enabled")
		}
		tok := "Bearer " + hs256(t, jwt.MapClaims{"role": "author"})
		id, err := v.Authenticate(tok)
		expect(t, id, err, ok("author", true))
	})
	for _, bound := range []int{1, 3, 100, 1000} {
		t.Run(fmt.Sprintf("the cache never holds more than %d tokens", bound), func(t *testing.T) {
			v := newVerifier(t, Config{Secret: testSecret, CacheMaxEntries: bound})
			for i := range 3 * bound {
				tok := "Bearer " + hs256(t, jwt.MapClaims{"role": "author", "i": i})
				id, err := v.Authenticate(tok)
				expect(t, id, err, ok("author", true))
			}
			if n := v.cache.len(); n != bound {
				t.Fatalf("cache holds %d entries, want %d", n, bound)
			}
		})
	}
	t.Run("a full cache evicts expired tokens first", func(t *testing.T) {
		c := newClock(t0)
		v := newVerifier(t, Config{Secret: testSecret, CacheMaxEntries: 4, Now: c.now})
		short := hs256(t, jwt.MapClaims{"role": "author", "exp": t0.Unix() + 10})
		long := make([]string, 3)
		for i := range long {
			long[i] = hs256(t, jwt.MapClaims{"role": "author", "i": i})
			_, _ = v.Authenticate("Bearer " + long[i])
		}
		_, _ = v.Authenticate("Bearer " + short)
		c.advance(time.Hour)
		_, _ = v.Authenticate("Bearer " + hs256(t, jwt.MapClaims{"role": "author", "new": true}))
		for _, tok := range long {
			if _, hit := v.cache.get(tok); !hit {
				t.Fatal("a live token was evicted while an expired one was cached")
			}
		}
		if _, hit := v.cache.get(short); hit {
			t.Fatal("the expired token is still cached")
		}
	})
}

func TestNewTokenCacheShards(t *testing.T) {
	tests := []struct {
		name       string
		max        int
		wantShards int
	}{
		{"a small cache has one shard", 100, 1},
		{"a thousand entries spread over eight shards", 1000, 8},
		{"a bound that does not divide evenly loses no entry", 1001, 8},
		{"a large cache stops at sixteen shards", 1 << 20, 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newTokenCache(tc.max)
			total := 0
			for i := range c.shards {
				total += c.shards[i].max
			}
			if len(c.shards) != tc.wantShards || total != tc.max {
				t.Fatalf("got %d shards holding %d, want %d holding %d", len(c.shards), total, tc.wantShards, tc.max)
			}
		})
	}
}

// TestConcurrentAuthenticate is meant for go test -race: many goroutines
// share one Verifier and a cache small enough to evict constantly.
func TestConcurrentAuthenticate(t *testing.T) {
	c := newClock(t0)
	v := newVerifier(t, Config{Secret: testSecret, AnonRole: "web_anon", CacheMaxEntries: 16, Now: c.now})
	tokens := make([]string, 64)
	for i := range tokens {
		claims := jwt.MapClaims{"role": fmt.Sprintf("user%d", i), "exp": t0.Unix() + int64(i)}
		tokens[i] = "Bearer " + hs256(t, claims)
	}
	bad := "Bearer " + hs256(t, jwt.MapClaims{"role": 1})

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 400 {
				if g == 0 && i%50 == 0 {
					c.advance(5 * time.Second) // expires the first tokens as it goes
				}
				n := (g*31 + i) % len(tokens)
				id, err := v.Authenticate(tokens[n])
				expired := err != nil && err.Message == "JWT expired"
				if !expired && (err != nil || id.Role != fmt.Sprintf("user%d", n)) {
					errs <- fmt.Errorf("token %d: got %+v %v", n, id, err)
					return
				}
				if _, err := v.Authenticate(bad); err == nil {
					errs <- fmt.Errorf("a bad token was accepted")
					return
				}
				if id, err := v.Authenticate(""); err != nil || id.Role != "web_anon" {
					errs <- fmt.Errorf("anonymous: got %+v %v", id, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := v.cache.len(); n > 16 {
		t.Fatalf("cache holds %d entries, bound is 16", n)
	}
}

func TestIdentityBytesAreMadeOncePerToken(t *testing.T) {
	v := newVerifier(t, Config{Secret: testSecret, AnonRole: "web_anon", CacheMaxEntries: 10})
	token := hs256(t, jwt.MapClaims{"role": "webuser", "exp": time.Now().Add(time.Hour).Unix()})
	first, aerr := v.Authenticate("Bearer " + token)
	if aerr != nil {
		t.Fatal(aerr)
	}
	second, aerr := v.Authenticate("Bearer " + token)
	if aerr != nil {
		t.Fatal(aerr)
	}
	if string(second.RoleBytes()) != "webuser" || string(second.ClaimsJSONBytes()) != second.ClaimsJSON {
		t.Fatalf("bytes %q %q, want the role and ClaimsJSON %s", second.RoleBytes(), second.ClaimsJSONBytes(), second.ClaimsJSON)
	}
	if &first.RoleBytes()[0] != &second.RoleBytes()[0] || &first.ClaimsJSONBytes()[0] != &second.ClaimsJSONBytes()[0] {
		t.Error("a cached token's bytes were made again")
	}
	anon, _ := v.Authenticate("")
	if string(anon.RoleBytes()) != "web_anon" || string(anon.ClaimsJSONBytes()) != anon.ClaimsJSON {
		t.Errorf("anonymous bytes %q %q", anon.RoleBytes(), anon.ClaimsJSONBytes())
	}
	// A copy whose role was changed sends its own role, not the token's.
	changed := second
	changed.Role = "other"
	if string(changed.RoleBytes()) != "other" {
		t.Errorf("changed copy sends %q", changed.RoleBytes())
	}
	// An Identity made by hand converts its strings.
	byHand := Identity{Role: "r", ClaimsJSON: `{"role":"r"}`}
	if string(byHand.RoleBytes()) != "r" || string(byHand.ClaimsJSONBytes()) != `{"role":"r"}` {
		t.Errorf("by hand: %q %q", byHand.RoleBytes(), byHand.ClaimsJSONBytes())
	}
}
