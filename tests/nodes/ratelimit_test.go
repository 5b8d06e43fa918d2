package nodes

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/redistest"
)

// Three nodes naming one Redis enforce one limit: a burst of 6 sent
// round-robin over them is allowed 6 times in all, not 6 times per node;
// and with Redis stopped mid-run, each node fails open (the default),
// answering and logging the failure.
func TestThreeNodesShareOneLimitThroughRedis(t *testing.T) {
	redis := redistest.Start(t)
	limit := []string{"rate_limit shared {\n\t\t\tkey address\n\t\t\trate 1/d\n\t\t\tburst 6\n\t\t}", "rate_limit_redis " + redis.URL}
	nodes := []*node{newNode(t, "a", limit...), newNode(t, "b", limit...), newNode(t, "c", limit...)}
	client := &http.Client{}
	statuses := func(n int) map[int]int {
		out := map[int]int{}
		for i := range n {
			code, body, err := get(client, nodes[i%len(nodes)].URL+"/clients?select=id&limit=1")
			if err != nil {
				t.Fatal(err)
			}
			if code != http.StatusOK && !strings.Contains(body, "PGRST193") {
				t.Fatalf("node %s: %d %s", nodes[i%len(nodes)].name, code, body)
			}
			out[code]++
		}
		return out
	}
	if got := statuses(15); got[http.StatusOK] != 6 || got[http.StatusTooManyRequests] != 9 {
		t.Errorf("15 requests over three nodes: %v, want 6 allowed and 9 refused in all", got)
	}

	redis.Stop()
	if got := statuses(6); got[http.StatusOK] != 6 {
		t.Errorf("with Redis stopped: %v, want every request let through (fail open)", got)
	}
	for _, n := range nodes {
		if logs := n.logs.String(); !strings.Contains(logs, "the rate limit store (Redis) failed") {
			t.Errorf("node %s logged no failure of Redis:\n%s", n.name, tail(logs, 20))
		}
	}
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return fmt.Sprint(strings.Join(lines, "\n"))
}
