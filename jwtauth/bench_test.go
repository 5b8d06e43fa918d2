package jwtauth

import (
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

func benchmarkAuthenticate(b *testing.B, cacheEntries int) {
	v := newVerifier(b, Config{Secret: testSecret, AnonRole: "web_anon", CacheMaxEntries: cacheEntries})
	tok := "Bearer " + hs256(b, jwt.MapClaims{
		"role": "author", "sub": "5f1c2a9e-0000-4000-8000-000000000000",
		"exp": t0.Unix() + 3600, "iat": t0.Unix(), "aud": "authenticated",
	})
	if _, err := v.Authenticate(tok); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := v.Authenticate(tok); err != nil {
				b.Error(err) // Fatal may not be called off the benchmark goroutine
				return
			}
		}
	})
}

// BenchmarkAuthenticateCached is the hot path: a token seen before.
func BenchmarkAuthenticateCached(b *testing.B) { benchmarkAuthenticate(b, 1000) }

// BenchmarkAuthenticateUncached verifies an HS256 token every time.
func BenchmarkAuthenticateUncached(b *testing.B) { benchmarkAuthenticate(b, 0) }

// BenchmarkAuthenticateMalformed refuses a token before any signature
// check: the cost a client sending garbage imposes.
func BenchmarkAuthenticateMalformed(b *testing.B) {
	v := newVerifier(b, Config{Secret: testSecret, AnonRole: "web_anon", CacheMaxEntries: 1000})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Authenticate("Bearer garbage"); err == nil {
			b.Fatal("a malformed token was accepted")
		}
	}
}

// TestHotPathDoesNotAllocate guards what the benchmarks measure: a cached
// token and a request without a token cost no allocation.
func TestHotPathDoesNotAllocate(t *testing.T) {
	v := newVerifier(t, Config{Secret: testSecret, AnonRole: "web_anon", CacheMaxEntries: 1000})
	tok := "Bearer " + hs256(t, jwt.MapClaims{"role": "author", "exp": t0.Unix() + 3600})
	if _, err := v.Authenticate(tok); err != nil {
		t.Fatal(err)
	}
	for _, header := range []string{tok, ""} {
		if n := testing.AllocsPerRun(100, func() { _, _ = v.Authenticate(header) }); n != 0 {
			t.Errorf("Authenticate(%.20q) allocates %v times per call, want 0", header, n)
		}
	}
}
