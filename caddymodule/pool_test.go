package caddymodule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// serverConfig is a Caddy config, admin off, serving two pgrest handlers
// on addr: /a/* and /b/*, both on testDBURI, with db_pool poolSize.
func serverConfig(t *testing.T, addr string, poolSize int) []byte {
	t.Helper()
	handler := func(path string, extra map[string]any) map[string]any {
		h := map[string]any{
			"handler":    "pgrest",
			"db_uri":     "{env.PGREST_TEST_DB_URI}",
			"db_schemas": []string{"api"},
			"db_pool":    poolSize,
			"jwt_secret": testSecret,
		}
		for k, v := range extra {
			h[k] = v
		}
		return map[string]any{
			"match":  []any{map[string]any{"path": []string{path}}},
			"handle": []any{h},
		}
	}
	cfg := map[string]any{
		"admin":   map[string]any{"disabled": true, "config": map[string]any{"persist": false}},
		"logging": map[string]any{"logs": map[string]any{"default": map[string]any{"level": "ERROR"}}},
		"apps": map[string]any{"http": map[string]any{"servers": map[string]any{"pgrest": map[string]any{
			"listen":          []string{addr},
			"automatic_https": map[string]any{"disable": true},
			"routes": []any{
				handler("/a/*", map[string]any{"db_anon_role": "web_anon"}),
				handler("/b/*", map[string]any{"db_schemas": []string{"other"}}),
			},
		}}}},
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// onlyPool returns the one pool in the usage pool and its reference count.
func onlyPool(t *testing.T) (*sharedPool, int) {
	t.Helper()
	var (
		found []*sharedPool
		refs  int
	)
	pools.Range(func(key, value any) bool {
		found = append(found, value.(*sharedPool))
		refs, _ = pools.References(key)
		return true
	})
	if len(found) != 1 {
		t.Fatalf("%d pools open, want 1", len(found))
	}
	return found[0], refs
}

func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// loadServerConfig loads serverConfig (pool size 5) on a free loopback
// address in a Caddy of the test's own, and returns the address and the
// function that stops Caddy (which the test's cleanup calls otherwise).
func loadServerConfig(t *testing.T) (addr string, stop func() error) {
	t.Helper()
	isolateCaddy(t)
	t.Setenv("PGREST_TEST_DB_URI", testDBURI)
	addr = freeLoopbackAddr(t)
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = caddy.Stop()
		}
	})
	if err := caddy.Load(serverConfig(t, addr, 5), true); err != nil {
		t.Fatalf("loading the config: %v", err)
	}
	return addr, func() error {
		stopped = true
		return caddy.Stop()
	}
}

func TestHandlersShareOnePoolAcrossReloads(t *testing.T) {
	addr, stop := loadServerConfig(t)
	first, refs := onlyPool(t)
	if refs != 2 {
		t.Errorf("the pool has %d users, want the 2 handlers", refs)
	}

	t.Run("the server answers through pgrest", func(t *testing.T) {
		resp, err := http.Get("http://" + addr + "/b/todos")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Proxy-Status") != "pgrest; error=PGRST302" {
			t.Errorf("got %d %q %s, want 401 PGRST302", resp.StatusCode, resp.Header.Get("Proxy-Status"), body)
		}
	})

	t.Run("a reload of the same pool config keeps the pool open", func(t *testing.T) {
		if err := caddy.Load(serverConfig(t, addr, 5), true); err != nil {
			t.Fatalf("reloading: %v", err)
		}
		again, refs := onlyPool(t)
		if again != first {
			t.Error("the reload made a new pool")
		}
		if refs != 2 {
			t.Errorf("the pool has %d users after the reload, want 2", refs)
		}
		if first.closed.Load() {
			t.Error("the reload closed the shared pool")
		}
	})

	t.Run("a reload with another db_pool swaps the pool and closes the old one", func(t *testing.T) {
		if err := caddy.Load(serverConfig(t, addr, 6), true); err != nil {
			t.Fatalf("reloading: %v", err)
		}
		next, refs := onlyPool(t)
		if next == first {
			t.Error("the pool was kept although db_pool changed")
		}
		if refs != 2 {
			t.Errorf("the new pool has %d users, want 2", refs)
		}
		if !first.closed.Load() {
			t.Error("the old pool is still open")
		}
		first = next
	})

	t.Run("stopping Caddy closes the pool", func(t *testing.T) {
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		if n := livePools(); n != 0 {
			t.Errorf("%d pools open after stopping", n)
		}
		if !first.closed.Load() {
			t.Error("the pool was not closed")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if conn, err := first.Acquire(ctx); err == nil {
			conn.Release()
			t.Error("the pool still hands out connections")
		} else if errors.Is(err, context.DeadlineExceeded) {
			t.Error(fmt.Errorf("acquiring from the closed pool waited: %w", err))
		}
	})
}
