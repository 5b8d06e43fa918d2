package jwks

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestKeyRotationMidTraffic(t *testing.T) {
	a, b := newSigner(t, "key-a"), newSigner(t, "key-b")
	publish(t, a)
	p := servePgrest(t, jwksURL)

	var current atomic.Pointer[signer]
	current.Store(&a)
	call := func() (int, string) { return p.call(current.Load().token(t)) }
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, _ := call()
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pgrest never accepted a token of the published key: %d", code)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Traffic from four clients while the provider rotates as identity
	// providers do: publish b beside a, sign with b, withdraw a.
	var wg sync.WaitGroup
	var okCount, withB atomic.Int32
	var failures sync.Map
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				usingB := current.Load().kid == "key-b"
				code, body := call()
				if code != 200 {
					failures.Store(body, code)
					continue
				}
				okCount.Add(1)
				if usingB {
					withB.Add(1)
				}
			}
		}()
	}
	// Each step of the rotation lasts a second and at least
	// perStep answered requests, however slowly a loaded machine
	// serves them.
	const perStep = 10
	step := func(what string, counter *atomic.Int32) {
		t.Helper()
		time.Sleep(time.Second)
		want := counter.Load() + perStep
		for deadline := time.Now().Add(30 * time.Second); counter.Load() < want; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				close(stop)
				wg.Wait()
				t.Fatalf("%s: %d requests answered in 30 s, want %d", what, counter.Load()-want+perStep, perStep)
			}
		}
	}
	step("with key a", &okCount)
	publish(t, a, b)
	current.Store(&b)
	step("with keys a and b published, signing with b", &withB)
	publish(t, b)
	step("with key b alone", &withB)
	close(stop)
	wg.Wait()
	failures.Range(func(body, code any) bool {
		t.Errorf("a request failed during the rotation: %v %v", code, body)
		return true
	})
	t.Logf("%d requests during the rotation, %d signed with the new key, none failed", okCount.Load(), withB.Load())

	// The provider fails: the keys fetched last stay in use, and the
	// failure is logged.
	if err := os.Remove(filepath.Join(providerDir, ".well-known", "jwks.json")); err != nil {
		t.Fatal(err)
	}
	// A token with a new kid makes pgrest fetch (once the rate limit of
	// unknown kids allows: within 5 s of b's).
	c := newSigner(t, "key-c")
	deadline = time.Now().Add(30 * time.Second)
	for !logHas(t, p.log, "fetching the JWKS; the last keys fetched stay in use", "404") {
		if time.Now().After(deadline) {
			t.Fatal("the failed fetch is not logged as an error naming the 404")
		}
		current.Store(&c)
		if code, _ := call(); code != 401 {
			t.Fatalf("a token of an unpublished key = %d, want 401", code)
		}
		time.Sleep(250 * time.Millisecond)
	}
	current.Store(&b)
	if code, body := call(); code != 200 {
		t.Errorf("with the provider failing, a token of the last fetched key = %d %s, want 200", code, body)
	}
}
