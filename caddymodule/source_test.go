package caddymodule

import (
	"testing"

	"github.com/caddyserver/caddy/v2"
)

// liveSources returns the schema sources in the usage pool and their
// reference counts.
func liveSources() map[*sharedSource]int {
	out := map[*sharedSource]int{}
	sources.Range(func(key, value any) bool {
		out[value.(*sharedSource)], _ = sources.References(key)
		return true
	})
	return out
}

func TestHandlersShareSchemaCachesAcrossReloads(t *testing.T) {
	addr, stop := loadServerConfig(t)
	first := liveSources()
	// /a/* serves api and /b/* other: one pool, two schema caches.
	if len(first) != 2 {
		t.Fatalf("%d schema sources, want one per set of schemas (2)", len(first))
	}
	for _, refs := range first {
		if refs != 1 {
			t.Errorf("a schema source has %d users, want 1", refs)
		}
	}

	t.Run("a reload with the same pool and schemas keeps the schema caches", func(t *testing.T) {
		if err := caddy.Load(serverConfig(t, addr, 5), true); err != nil {
			t.Fatalf("reloading: %v", err)
		}
		again := liveSources()
		if len(again) != 2 {
			t.Fatalf("%d schema sources after the reload, want 2", len(again))
		}
		for src := range again {
			if _, kept := first[src]; !kept {
				t.Error("the reload made a new schema source")
			}
			if src.closed.Load() {
				t.Error("the reload closed a shared schema source")
			}
		}
	})

	t.Run("a reload with another pool swaps the schema caches and closes the old ones", func(t *testing.T) {
		if err := caddy.Load(serverConfig(t, addr, 6), true); err != nil {
			t.Fatalf("reloading: %v", err)
		}
		next := liveSources()
		if len(next) != 2 {
			t.Fatalf("%d schema sources after the reload, want 2", len(next))
		}
		for src := range first {
			if _, kept := next[src]; kept {
				t.Error("a schema source was kept although its pool changed")
			}
			if !src.closed.Load() {
				t.Error("an old schema source is still running")
			}
		}
		first = next
	})

	t.Run("stopping Caddy stops every schema source", func(t *testing.T) {
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		if n := len(liveSources()); n != 0 {
			t.Errorf("%d schema sources left after stopping", n)
		}
		for src := range first {
			if !src.closed.Load() {
				t.Error("a schema source was not stopped")
			}
		}
	})
}
