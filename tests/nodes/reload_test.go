package nodes

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// propagationTimeout bounds the wait for every node to serve the schema
// changed by NOTIFY pgrst, 'reload schema': it keeps the test from
// hanging, and is generous for a loaded machine. How soon each node
// serves it is logged, not asserted.
const propagationTimeout = 30 * time.Second

// TestSchemaReloadReachesEveryNode: a table made after both nodes started
// is served by neither until NOTIFY pgrst, 'reload schema', then by both;
// dropping it and notifying again makes both answer 404 PGRST205 again.
func TestSchemaReloadReachesEveryNode(t *testing.T) {
	nodes := []*node{newNode(t, "a"), newNode(t, "b")}
	const path = "/node_reload?select=id"
	for _, n := range nodes {
		expectStatus(t, n, path, http.StatusNotFound, "PGRST205")
	}

	pgtest.Exec(t, db.SuperDSN, `
create table api.node_reload (id int primary key);
insert into api.node_reload values (1);
grant select on api.node_reload to web_anon;`)
	// The schema cache is the node's own: without the NOTIFY the table
	// stays unknown, so what follows measures the NOTIFY reaching it.
	for _, n := range nodes {
		expectStatus(t, n, path, http.StatusNotFound, "PGRST205")
	}
	took := timeUntil(t, nodes, path, http.StatusOK, `[{"id":1}]`)
	for _, n := range nodes {
		t.Logf("table created: node %s served it %s after the NOTIFY", n.name, took[n.name].Round(time.Millisecond))
	}

	pgtest.Exec(t, db.SuperDSN, `drop table api.node_reload;`)
	took = timeUntil(t, nodes, path, http.StatusNotFound, "PGRST205")
	for _, n := range nodes {
		t.Logf("table dropped: node %s answered 404 %s after the NOTIFY", n.name, took[n.name].Round(time.Millisecond))
	}
}

// timeUntil sends NOTIFY pgrst, 'reload schema' and polls path on every
// node until it answers status with a body holding want, failing t when a
// node does not within propagationTimeout. It returns each node's time from
// the NOTIFY to that answer.
func timeUntil(t *testing.T, nodes []*node, path string, status int, want string) map[string]time.Duration {
	t.Helper()
	var (
		mu     sync.Mutex
		took   = map[string]time.Duration{}
		failed []string
		wg     sync.WaitGroup
	)
	start := time.Now()
	pgtest.Exec(t, db.SuperDSN, `notify pgrst, 'reload schema'`)
	for _, n := range nodes {
		wg.Add(1)
		go func(n *node) {
			defer wg.Done()
			client := &http.Client{Timeout: propagationTimeout}
			var last string
			for time.Since(start) < propagationTimeout {
				code, body, err := get(client, n.URL+path)
				if err == nil && code == status && strings.Contains(body, want) {
					mu.Lock()
					took[n.name] = time.Since(start)
					mu.Unlock()
					return
				}
				last = body
				if err != nil {
					last = err.Error()
				}
				time.Sleep(10 * time.Millisecond)
			}
			mu.Lock()
			failed = append(failed, n.name+" (last answer: "+last+")")
			mu.Unlock()
		}(n)
	}
	wg.Wait()
	if len(failed) > 0 {
		t.Fatalf("not answering %d %s within %s of the NOTIFY: %s", status, want, propagationTimeout, strings.Join(failed, ", "))
	}
	return took
}

// expectStatus checks that node n answers GET path with status and a body
// holding want.
func expectStatus(t *testing.T, n *node, path string, status int, want string) {
	t.Helper()
	code, body, err := get(&http.Client{Timeout: 30 * time.Second}, n.URL+path)
	if err != nil {
		t.Fatalf("node %s: GET %s: %v", n.name, path, err)
	}
	if code != status || !strings.Contains(body, want) {
		t.Fatalf("node %s: GET %s = %d %s, want %d with %s", n.name, path, code, body, status, want)
	}
}

func get(client *http.Client, url string) (int, string, error) {
	res, err := client.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, string(b), err
}
