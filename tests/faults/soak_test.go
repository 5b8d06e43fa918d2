package faults

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A short soak: steady mixed load for soakFor and at least minRequests
// past the warm-up, however slowly a loaded machine serves them. Every
// request succeeds, memory stays bounded (the heap after a collection and
// the process's resident set do not grow with the requests served), and
// the number of database connections stays flat: the pool opens no more
// than it holds.
func TestSoak(t *testing.T) {
	const (
		pool        = 10
		clients     = 6
		soakFor     = 20 * time.Second
		warmUp      = 3 * time.Second
		minRequests = 1000
		// soakLimit ends a soak whose load stalls.
		soakLimit = 5 * time.Minute
		maxGrowH  = 32 << 20 // heap growth allowed past the warm-up, in bytes
		maxGrowR  = 96 << 20 // resident set growth allowed
	)
	sessions := countSessions(t)
	s := startServer(t, fmt.Sprintf("db_pool %d", pool))
	ready(t, s)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	requests := []struct{ method, path, body string }{
		{http.MethodGet, "/writes?order=id.desc&limit=20", ""},
		{http.MethodPost, "/writes", `{"key": "soak"}`},
		{http.MethodPost, "/rpc/sleep", `{"seconds": 0}`},
		{http.MethodGet, "/writes?key=eq.soak&select=id,key&limit=5", ""},
	}
	var served, failed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r := requests[i%len(requests)]
				res, err := s.Try(client, r.method, r.path, r.body)
				if err != nil || res.Status >= 300 {
					if failed.Add(1) <= 5 {
						if err != nil {
							t.Errorf("%s %s: %v", r.method, r.path, err)
						} else {
							t.Errorf("%s %s: %d %s", r.method, r.path, res.Status, res.Body)
						}
					}
					continue
				}
				served.Add(1)
			}
		}()
	}

	time.Sleep(warmUp)
	baseHeap, baseRSS := memory(t)
	baseServed := served.Load()
	var maxConns, minConns int64 = 0, 1 << 30
	soakStart := time.Now()
	for time.Since(soakStart) < soakFor-warmUp || served.Load()-baseServed < minRequests {
		if time.Since(soakStart) > soakLimit {
			close(stop)
			wg.Wait()
			t.Fatalf("the load stalled: %d requests served in %s past the warm-up, want %d", served.Load()-baseServed, soakLimit, minRequests)
		}
		n := authenticatorBackends(t, "", "")
		maxConns, minConns = max(maxConns, n), min(minConns, n)
		time.Sleep(time.Second)
	}
	soaked := time.Since(soakStart)
	close(stop)
	wg.Wait()
	endHeap, endRSS := memory(t)
	opened := sessions.Opened(t)

	t.Logf("soak of %v past a warm-up of %v with %d clients: %d requests answered 2xx (%d after the warm-up), %d failed; "+
		"heap after GC %.1f MiB -> %.1f MiB, RSS %.1f MiB -> %.1f MiB; authenticator connections %d to %d, "+
		"sessions opened %d (db_pool %d)",
		soaked.Round(time.Second), warmUp, clients, served.Load(), served.Load()-baseServed, failed.Load(),
		mib(baseHeap), mib(endHeap), mib(baseRSS), mib(endRSS), minConns, maxConns, opened, pool)

	if failed.Load() > 0 {
		t.Errorf("%d requests failed", failed.Load())
	}
	if endHeap > baseHeap+maxGrowH {
		t.Errorf("the heap grew from %.1f MiB to %.1f MiB", mib(baseHeap), mib(endHeap))
	}
	if endRSS > baseRSS+maxGrowR {
		t.Errorf("the resident set grew from %.1f MiB to %.1f MiB", mib(baseRSS), mib(endRSS))
	}
	// The pool's connections and the schema cache's listener.
	if maxConns > pool+1 {
		t.Errorf("%d authenticator connections at once, more than db_pool %d and the listener", maxConns, pool)
	}
	if opened > pool+1 {
		t.Errorf("the server opened %d sessions: connections were replaced during the soak", opened)
	}
}

// memory is the heap in use after a collection and the process's resident
// set, in bytes. Caddy serves from this process, so both are the server's
// (and the load's).
func memory(t testing.TB) (heap, rss uint64) {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", rest, err)
			}
			rss = kb << 10
		}
	}
	if rss == 0 {
		t.Fatal("no VmRSS in /proc/self/status")
	}
	return ms.HeapInuse, rss
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
