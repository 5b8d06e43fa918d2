package nodes

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// startTimeout bounds a node's start, generous for a loaded machine: the
// binary starts, Caddy loads its config and pgrest its schema cache.
const startTimeout = 60 * time.Second

// node is one pgrest node: a Caddy process serving pgrest, with
// pgrest_health's /live and /ready in the same site, on its own port. Its
// responses carry X-Node: name, so a client behind a load balancer sees
// which node answered.
type node struct {
	name string
	URL  string
	dir  string // the Caddyfile and Caddy's data and config folders

	mu   sync.Mutex
	cmd  *exec.Cmd
	logs *syncBuffer
	done chan struct{} // closed when cmd has exited
}

// newNode starts a node named name, its pgrest handler with the
// subdirective lines beside its own, and waits until it is ready; it is
// killed when the test ends.
func newNode(t *testing.T, name string, lines ...string) *node {
	t.Helper()
	port, err := pgresttest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	n := &node{name: name, URL: fmt.Sprintf("http://127.0.0.1:%d", port), dir: t.TempDir()}
	dsn := db.DSNFor(fixtures.Authenticator, fixtures.AuthenticatorPassword)
	caddyfile := fmt.Sprintf(`{
	admin off
	persist_config off
	auto_https off
	grace_period 10s
}
http://127.0.0.1:%d {
	header X-Node %s
	pgrest_health
	pgrest {
		db_uri %s
		db_schemas api
		db_anon_role %s
		%s
	}
}
`, port, name, pgresttest.Quote(dsn), fixtures.AnonRole, strings.Join(lines, "\n\t\t"))
	if err := os.WriteFile(filepath.Join(n.dir, "Caddyfile"), []byte(caddyfile), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.kill)
	n.start(t)
	t.Logf("node %s serves on %s", name, n.URL)
	return n
}

// start runs the node's Caddy and waits until /ready answers 200.
func (n *node) start(t *testing.T) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "run", "--config", filepath.Join(n.dir, "Caddyfile"), "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), runAsCaddy+"=1",
		"XDG_DATA_HOME="+filepath.Join(n.dir, "data"), "XDG_CONFIG_HOME="+filepath.Join(n.dir, "config"))
	logs := new(syncBuffer)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	n.mu.Lock()
	n.cmd, n.logs, n.done = cmd, logs, done
	n.mu.Unlock()
	n.waitReady(t)
}

// waitReady waits until the node's /ready answers 200.
func (n *node) waitReady(t *testing.T) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(startTimeout)
	for {
		res, err := client.Get(n.URL + "/ready")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-n.done:
			t.Fatalf("node %s exited before it was ready:\n%s", n.name, n.logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %s was not ready in %s (last: %v):\n%s", n.name, startTimeout, err, n.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop sends the node SIGTERM, as an orchestrator does, and waits for
// Caddy's graceful shutdown to finish.
func (n *node) stop(t *testing.T) {
	t.Helper()
	n.mu.Lock()
	cmd, done := n.cmd, n.done
	n.mu.Unlock()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(startTimeout):
		t.Fatalf("node %s did not stop in %s after SIGTERM:\n%s", n.name, startTimeout, n.logs.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("node %s exited with %d after SIGTERM:\n%s", n.name, code, n.logs.String())
	}
}

// kill ends the node's process if it still runs.
func (n *node) kill() {
	n.mu.Lock()
	cmd, done := n.cmd, n.done
	n.mu.Unlock()
	if cmd == nil {
		return
	}
	select {
	case <-done:
	default:
		_ = cmd.Process.Kill()
		<-done
	}
}

// syncBuffer is a bytes.Buffer that a process's output and the test may
// use at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
