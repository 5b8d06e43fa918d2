package jwtauth

import (
	"hash/maphash"
	"sync"
	"time"
)

const (
	// maxCacheShards caps the lock striping: past a few shards per core
	// contention is gone and more shards only fragment the bound.
	maxCacheShards = 16
	// minShardEntries keeps shards big enough that random eviction in one
	// shard does not throw out tokens while others sit half empty.
	minShardEntries = 64
	// evictionSample is how many entries a full shard looks at for an
	// expired one before evicting an arbitrary one.
	evictionSample = 8
)

// cacheEntry is what a verified token resolves to.
type cacheEntry struct {
	id    Identity
	times timeClaims
	// cachedAt is when the token was verified, for CacheMaxLifetime.
	cachedAt time.Time
}

// tokenCache maps raw verified tokens to their identity. It is bounded and
// striped over a few mutex-guarded maps, so the hot path is one hash, one
// uncontended lock and one map lookup.
type tokenCache struct {
	seed   maphash.Seed
	shards []cacheShard
}

type cacheShard struct {
	mu      sync.Mutex
	entries map[string]cacheEntry
	max     int
}

// newTokenCache returns a cache holding at most maxEntries tokens in all.
func newTokenCache(maxEntries int) *tokenCache {
	n := 1
	for n < maxCacheShards && maxEntries/(2*n) >= minShardEntries {
		n *= 2
	}
	c := &tokenCache{seed: maphash.MakeSeed(), shards: make([]cacheShard, n)}
	for i := range c.shards {
		c.shards[i].entries = make(map[string]cacheEntry)
		c.shards[i].max = maxEntries / n
		if i < maxEntries%n {
			c.shards[i].max++
		}
	}
	return c
}

func (c *tokenCache) shard(token string) *cacheShard {
	if len(c.shards) == 1 {
		return &c.shards[0]
	}
	// n is a power of two.
	return &c.shards[maphash.String(c.seed, token)&uint64(len(c.shards)-1)]
}

func (c *tokenCache) get(token string) (cacheEntry, bool) {
	s := c.shard(token)
	s.mu.Lock()
	e, ok := s.entries[token]
	s.mu.Unlock()
	return e, ok
}

// put stores a verified token. A full shard first drops expired entries it
// samples, else one arbitrary entry: map iteration order is random, which
// makes this random eviction, good enough for a cache whose misses cost one
// signature check.
func (c *tokenCache) put(token string, e cacheEntry, now time.Time) {
	s := c.shard(token)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.entries[token]; !ok && len(s.entries) >= s.max {
		s.evict(now)
	}
	s.entries[token] = e
}

// evict makes room for one entry; the caller holds s.mu.
func (s *cacheShard) evict(now time.Time) {
	var victim string
	seen, removed := 0, false
	for tok, e := range s.entries {
		if seen == 0 {
			victim = tok
		}
		if e.times.expired(now) {
			delete(s.entries, tok)
			removed = true
		}
		if seen++; seen == evictionSample {
			break
		}
	}
	if !removed && seen > 0 {
		delete(s.entries, victim)
	}
}

func (c *tokenCache) remove(token string) {
	s := c.shard(token)
	s.mu.Lock()
	delete(s.entries, token)
	s.mu.Unlock()
}

// len counts the entries; tests use it.
func (c *tokenCache) len() int {
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		n += len(s.entries)
		s.mu.Unlock()
	}
	return n
}
