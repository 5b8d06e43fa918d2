package ratelimit

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

// Memory is a Store in this process's memory: one node's limit.
type Memory struct {
	seed   maphash.Seed
	shards [64]memoryShard
	// epoch makes times small durations; now is the clock (tests set it).
	epoch time.Time
	now   func() time.Time
}

// memoryShard is a part of the keys under one lock, so that requests of
// different keys seldom wait for each other.
type memoryShard struct {
	mu  sync.Mutex
	tat map[string]state
	// sweepAt is when keys whose bucket is full again are next dropped.
	sweepAt time.Duration
}

// sweepEvery is how often a shard drops the keys that are back to a full
// burst: they hold no state a new key would not.
const sweepEvery = time.Minute

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	m := &Memory{seed: maphash.MakeSeed(), epoch: time.Now(), now: time.Now}
	for i := range m.shards {
		m.shards[i].tat = map[string]state{}
	}
	return m
}

// Allow counts one request of key against q.
func (m *Memory) Allow(_ context.Context, key string, q Quota) (Result, error) {
	s := &m.shards[maphash.String(m.seed, key)%uint64(len(m.shards))]
	s.mu.Lock()
	defer s.mu.Unlock()
	// The clock is read under the lock: read before it, a request that
	// waited for the lock would be counted at a time before the last
	// one's, owing more than the burst allows.
	now := m.now().Sub(m.epoch)
	if now >= s.sweepAt {
		for k, st := range s.tat {
			if st.tat <= now {
				delete(s.tat, k)
			}
		}
		s.sweepAt = now + sweepEvery
	}
	old := s.tat[key]
	res, next := gcra(old, now, q)
	if next != old {
		s.tat[key] = next
	}
	return res, nil
}
