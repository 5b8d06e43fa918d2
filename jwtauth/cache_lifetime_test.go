package jwtauth

import (
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestCacheMaxLifetime(t *testing.T) {
	t.Run("a token cached longer than jwt_cache_max_lifetime is verified again", func(t *testing.T) {
		c := newClock(t0)
		v := newVerifier(t, Config{Secret: testSecret, CacheMaxEntries: 10, CacheMaxLifetime: time.Minute, Now: c.now})
		tok := "Bearer " + hs256(t, jwt.MapClaims{"role": "author"})
		id, err := v.Authenticate(tok)
		expect(t, id, err, ok("author", true))
		keys := v.keys.Load()
		v.keys.Store(newKeySet(nil)) // a verification would now answer PGRST300
		c.advance(30 * time.Second)
		id, err = v.Authenticate(tok)
		expect(t, id, err, ok("author", true)) // still cached
		c.advance(30 * time.Second)
		id, err = v.Authenticate(tok)
		expect(t, id, err, fails("PGRST300", "Server lacks JWT secret"))
		v.keys.Store(keys)
		id, err = v.Authenticate(tok)
		expect(t, id, err, ok("author", true))
	})
	t.Run("without it a token stays cached until it expires", func(t *testing.T) {
		c := newClock(t0)
		v := newVerifier(t, Config{Secret: testSecret, CacheMaxEntries: 10, Now: c.now})
		tok := "Bearer " + hs256(t, jwt.MapClaims{"role": "author"})
		id, err := v.Authenticate(tok)
		expect(t, id, err, ok("author", true))
		v.keys.Store(newKeySet(nil))
		c.advance(24 * time.Hour)
		id, err = v.Authenticate(tok)
		expect(t, id, err, ok("author", true))
	})
}
