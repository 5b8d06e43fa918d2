package nodes

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	_ "github.com/caddyserver/caddy/v2/modules/standard" // reverse_proxy and the Caddyfile adapter

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// TestRollingRestartLosesNoRequest restarts one node, then the other,
// under a load of GET requests through a load balancer (this process's
// Caddy, reverse_proxy with active health checks on /ready and retries):
// no client request fails, and each restarted node serves again before
// the next one stops.
func TestRollingRestartLosesNoRequest(t *testing.T) {
	nodes := []*node{newNode(t, "a"), newNode(t, "b")}
	lb := startLoadBalancer(t, nodes)

	load := startLoad(t, lb+"/films?select=id,title&order=id&limit=3", 4)
	load.waitServedBy(t, "a", servedEach)
	load.waitServedBy(t, "b", servedEach)
	for i, n := range nodes {
		other := nodes[1-i]
		n.stop(t)
		t.Logf("node %s stopped", n.name)
		// Down for a moment under load: requests go to the other node,
		// servedEach of them at least past the moment, however slowly a
		// loaded machine serves them.
		time.Sleep(2 * time.Second)
		load.waitServedBy(t, other.name, servedEach)
		n.start(t)
		t.Logf("node %s ready again", n.name)
		// Back in the load balancer's rotation before the next node stops,
		// or that stop would leave no node to serve.
		load.waitServedBy(t, n.name, 1)
	}
	load.waitServedBy(t, "a", servedEach)
	c := load.stop()

	t.Logf("requests: %d succeeded (node a %d, node b %d), %d failed",
		c.ok, c.byNode["a"], c.byNode["b"], c.failed)
	if c.failed > 0 {
		t.Errorf("%d requests failed through the load balancer; the first:\n%s", c.failed, strings.Join(c.errors, "\n"))
	}
}

// servedEach is how many requests a node serves in each phase of the
// rolling restart: before the restarts, while the other is down, and at
// the end.
const servedEach = 20

// startLoadBalancer loads this process's Caddy with a site proxying to
// nodes round robin: a node is in rotation while its /ready answers 200
// (checked every 200ms), is taken out for 2s after a failed request, and a
// failed request is tried again on another node for up to 5s. It returns
// the site's URL; Caddy stops when the test ends.
func startLoadBalancer(t *testing.T, nodes []*node) string {
	t.Helper()
	port, err := pgresttest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	upstreams := make([]string, len(nodes))
	for i, n := range nodes {
		upstreams[i] = strings.TrimPrefix(n.URL, "http://")
	}
	text := fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
	log {
		level ERROR
	}
}
http://127.0.0.1:%d {
	reverse_proxy %s {
		lb_policy round_robin
		lb_try_duration 5s
		lb_try_interval 100ms
		fail_duration 2s
		health_uri /ready
		health_interval 200ms
		health_timeout 2s
	}
}
`, port, strings.Join(upstreams, " "))
	cfg, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(text), nil)
	if err != nil {
		t.Fatalf("adapting the load balancer's Caddyfile: %v\n%s", err, text)
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatalf("loading the load balancer's config: %v\n%s", err, text)
	}
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stopping the load balancer: %v", err)
		}
	})
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// load is a few goroutines sending GET requests to one URL in a loop,
// counting what comes back.
type load struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	start  time.Time

	mu sync.Mutex
	c  counts
}

// counts are a load's results.
type counts struct {
	ok, failed int
	// byNode counts the successes by the X-Node header, the node that
	// answered.
	byNode map[string]int
	// errors are the first few failures, described.
	errors []string
}

func startLoad(t *testing.T, url string, workers int) *load {
	ctx, cancel := context.WithCancel(context.Background())
	l := &load{cancel: cancel, start: time.Now(), c: counts{byNode: map[string]int{}}}
	client := &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: workers},
	}
	t.Cleanup(cancel)
	for range workers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for ctx.Err() == nil {
				l.record(client.Get(url))
				// A steady load, not all the CPU of a shared machine.
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	return l
}

// record counts one response: a success is a 200 with a JSON array.
func (l *load) record(res *http.Response, err error) {
	var failure string
	node := ""
	if err != nil {
		failure = err.Error()
	} else {
		body, rerr := io.ReadAll(res.Body)
		res.Body.Close()
		err = rerr
		node = res.Header.Get("X-Node")
		switch {
		case err != nil:
			failure = fmt.Sprintf("%d, reading the body: %v", res.StatusCode, err)
		case res.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "[{"):
			failure = fmt.Sprintf("%d from node %q: %s", res.StatusCode, node, body)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if failure == "" {
		l.c.ok++
		l.c.byNode[node]++
		return
	}
	l.c.failed++
	if len(l.c.errors) < 5 {
		l.c.errors = append(l.c.errors, fmt.Sprintf("after %s: %s", time.Since(l.start).Round(time.Millisecond), failure))
	}
}

// waitServedBy waits until the load has had n successes from node name
// that it had not had yet when called.
func (l *load) waitServedBy(t *testing.T, name string, n int) {
	t.Helper()
	l.mu.Lock()
	before := l.c.byNode[name]
	l.mu.Unlock()
	deadline := time.Now().Add(startTimeout)
	for {
		l.mu.Lock()
		now := l.c.byNode[name]
		l.mu.Unlock()
		if now >= before+n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the load balancer sent %d requests to node %s in %s, want %d", now-before, name, startTimeout, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop ends the load, waits for its requests in flight, and returns the
// counts.
func (l *load) stop() counts {
	l.cancel()
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c
}
