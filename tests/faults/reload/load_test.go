package reload

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// loadResult counts what a load's requests got.
type loadResult struct {
	mu       sync.Mutex
	total    int
	failures map[string]int // "503 PGRST002", "connection: ..."
	// resent counts requests sent again after a connection-level error.
	resent int
}

func (r *loadResult) record(res *pgresttest.Response, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total++
	switch {
	case err != nil:
		r.failures["connection: "+err.Error()]++
	case res.Status < 200 || res.Status > 299:
		r.failures[fmt.Sprintf("%d %s", res.Status, res.Header.Get("Proxy-Status"))]++
	}
}

// failed is the number of failed requests and a summary of them.
func (r *loadResult) failed() (int, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	var kinds []string
	for k, c := range r.failures {
		n += c
		kinds = append(kinds, fmt.Sprintf("%dx %s", c, k))
	}
	sort.Strings(kinds)
	return n, strings.Join(kinds, "; ")
}

// answered is the number of requests answered so far.
func (r *loadResult) answered() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

// startLoad sends requests to s from workers goroutines, each path in
// turn, until the stop it returns is called; stop returns what they got.
func startLoad(s *pgresttest.Server, workers int, paths []string) (r *loadResult, stop func() *loadResult) {
	r = &loadResult{failures: map[string]int{}}
	done := make(chan struct{})
	var wg sync.WaitGroup
	var next atomic.Int64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 30 * time.Second}
			for {
				select {
				case <-done:
					return
				default:
				}
				path := paths[int(next.Add(1))%len(paths)]
				res, err := s.Try(client, http.MethodGet, path, "")
				if err != nil {
					// A reload shuts the old server down, and Caddy's
					// hand-over of the listener now and then resets a
					// connection a request was just sent on, before any
					// handler saw it (about 1 in 7,500 here, with or
					// without keep-alive). A load balancer sends such a
					// GET again; so does this load, once, and counts it.
					r.mu.Lock()
					r.resent++
					r.mu.Unlock()
					res, err = s.Try(client, http.MethodGet, path, "")
				}
				r.record(res, err)
			}
		}()
	}
	return r, func() *loadResult {
		close(done)
		wg.Wait()
		return r
	}
}
