// Command benchsockets measures the memory an idle realtime socket costs
// Caddy+pgrest, for make bench: it starts a throwaway PostgreSQL, starts
// itself again as Caddy serving pgrest with realtime_enabled in a process
// of its own, opens -n sockets (default 1,000) that each join a channel
// as supabase-js does and then stay idle, and reports the process's VmRSS
// before and after, and the difference per socket. It asserts nothing:
// the figure is printed for the README's Performance section.
//
//	go run ./tests/benchsockets            # 1,000 sockets
//	go run ./tests/benchsockets -n 5000
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/coder/websocket"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/pgrest/caddy-pgrest/caddymodule"
	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// runAsCaddy makes this program run Caddy's command line: the server is
// this binary started again.
const runAsCaddy = "PGREST_BENCHSOCKETS_RUN_CADDY"

func main() {
	if os.Getenv(runAsCaddy) == "1" {
		caddycmd.Main()
		return
	}
	n := flag.Int("n", 1000, "idle sockets to open")
	flag.Parse()
	if err := run(*n); err != nil {
		fmt.Fprintln(os.Stderr, "benchsockets:", err)
		os.Exit(1)
	}
}

func run(n int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	db, err := pgresttest.SetUp(ctx, "pgrest_bench_sockets", pgresttest.ReadFixture)
	if err != nil {
		return err
	}
	defer db.Cluster.Stop()

	port, err := pgresttest.FreePort()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "pgrest-benchsockets-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	text := pgresttest.Caddyfile(port, map[string]string{
		"db_uri":           pgresttest.Quote(db.AuthenticatorDSN()),
		"db_schemas":       "api",
		"db_anon_role":     fixtures.AnonRole,
		"realtime_enabled": "true",
	}, pgresttest.Options{LogLevel: "ERROR"})
	config := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(config, []byte(text), 0o600); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	logFile, err := os.Create(filepath.Join(dir, "caddy.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd := exec.Command(exe, "run", "--config", config, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), runAsCaddy+"=1")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	}()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	if err := waitReady(ctx, base); err != nil {
		return err
	}
	ws := "ws://127.0.0.1:" + strconv.Itoa(port) + "/realtime/v1/websocket?vsn=2.0.0"

	// Warm up: a few sockets opened and closed, so that what the first
	// socket costs once (buffers, goroutine stacks) is not counted.
	warm, err := openSockets(ctx, ws, 20)
	if err != nil {
		return err
	}
	closeAll(warm)
	time.Sleep(2 * time.Second)
	before, err := vmRSS(cmd.Process.Pid)
	if err != nil {
		return err
	}
	conns, err := openSockets(ctx, ws, n)
	if err != nil {
		return err
	}
	time.Sleep(2 * time.Second)
	after, err := vmRSS(cmd.Process.Pid)
	if err != nil {
		return err
	}
	closeAll(conns)
	fmt.Printf("realtime: %d idle sockets, each joined to a channel: VmRSS of Caddy+pgrest %.1f MB before, %.1f MB after: %.1f KiB per socket\n",
		n, float64(before)/1024, float64(after)/1024, float64(after-before)/float64(n))
	return nil
}

// openSockets opens n sockets, each joining one of ten topics.
func openSockets(ctx context.Context, url string, n int) ([]*websocket.Conn, error) {
	conns := make([]*websocket.Conn, 0, n)
	for i := 0; i < n; i++ {
		c, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			closeAll(conns)
			return nil, fmt.Errorf("socket %d: %w", i, err)
		}
		join, _ := json.Marshal([]any{"1", "1", fmt.Sprintf("realtime:idle-%d", i%10), "phx_join",
			map[string]any{"config": map[string]any{"broadcast": map[string]bool{"self": false, "ack": false},
				"presence": map[string]any{"key": "", "enabled": false}, "postgres_changes": []any{}, "private": false}}})
		if err := c.Write(ctx, websocket.MessageText, join); err != nil {
			closeAll(append(conns, c))
			return nil, err
		}
		if _, reply, err := c.Read(ctx); err != nil || !bytes.Contains(reply, []byte(`"ok"`)) {
			closeAll(append(conns, c))
			return nil, fmt.Errorf("socket %d: join: %v %s", i, err, reply)
		}
		conns = append(conns, c)
	}
	return conns, nil
}

func closeAll(conns []*websocket.Conn) {
	for _, c := range conns {
		_ = c.CloseNow()
	}
}

// waitReady waits until pgrest answers.
func waitReady(ctx context.Context, base string) error {
	for {
		res, err := http.Get(base + "/clients?limit=1")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pgrest not ready: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// vmRSS is a process's resident memory in kB.
func vmRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 {
				return strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
