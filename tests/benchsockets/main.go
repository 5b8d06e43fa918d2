// Command benchsockets measures the memory an idle realtime socket costs
// Caddy+pgrest, for make bench: it starts a throwaway PostgreSQL, starts
// itself again as Caddy serving pgrest with realtime_enabled in a process
// of its own, opens -n sockets (default 1,000) that each join a channel
// as supabase-js does and then stay idle, and reports the process's VmRSS
// before and after, and the difference per socket. It asserts nothing:
// the figure is printed for the README's Performance section. Then it
// measures postgres_changes through the socket to clients (delivery.go).
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
	clients := flag.String("delivery", "1,100", "clients of the delivery runs, comma-separated (empty: none)")
	changes := flag.Int("changes", 2000, "changes (single-row inserts) per delivery run")
	flag.StringVar(&adminAddr, "admin", "", "address of the Caddy admin endpoint of the server under test, such as 127.0.0.1:2999, to take a profile from its /debug/pprof/ during a run (empty: off)")
	flag.Parse()
	if err := run(*n); err != nil {
		fmt.Fprintln(os.Stderr, "benchsockets:", err)
		os.Exit(1)
	}
	if *clients == "" {
		return
	}
	var counts []int
	for _, f := range strings.Split(*clients, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || c < 1 {
			fmt.Fprintf(os.Stderr, "benchsockets: -delivery: %q is not a count of clients\n", f)
			os.Exit(2)
		}
		counts = append(counts, c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	results, err := measureDelivery(ctx, counts, *changes)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchsockets: delivery:", err)
		os.Exit(1)
	}
	fmt.Printf("\nrealtime delivery through the socket: %d single-row inserts from %d connections, every client subscribed to them\n",
		*changes, deliveryWriters)
	fmt.Printf("%-10s %12s %14s %10s %10s\n", "clients", "changes/s", "deliveries/s", "p50", "p99")
	for _, r := range results {
		fmt.Printf("%-10d %12.0f %14.0f %10s %10s\n", r.clients, r.changesPerSec, r.changesPerSec*float64(r.clients),
			r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond))
	}
	fmt.Println("changes/s: the changes over the time from the first insert to the last change every client received;")
	fmt.Println("p50/p99: a change's receipt at the client less its commit_timestamp. tests/bench/realtime has the stream decoded alone.")
}

func run(n int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	db, err := pgresttest.SetUp(ctx, "pgrest_bench_sockets", pgresttest.ReadFixture)
	if err != nil {
		return err
	}
	defer db.Cluster.Stop()

	caddy, err := startCaddy(ctx, map[string]string{
		"db_uri":           pgresttest.Quote(db.AuthenticatorDSN()),
		"db_schemas":       "api",
		"db_anon_role":     fixtures.AnonRole,
		"realtime_enabled": "true",
	}, "/clients?limit=1")
	if err != nil {
		return err
	}
	defer caddy.stop()
	port := caddy.port
	ws := "ws://127.0.0.1:" + strconv.Itoa(port) + "/realtime/v1/websocket?vsn=2.0.0"

	// Warm up: a few sockets opened and closed, so that what the first
	// socket costs once (buffers, goroutine stacks) is not counted.
	warm, err := openSockets(ctx, ws, 20)
	if err != nil {
		return err
	}
	closeAll(warm)
	time.Sleep(2 * time.Second)
	before, err := vmRSS(caddy.pid)
	if err != nil {
		return err
	}
	conns, err := openSockets(ctx, ws, n)
	if err != nil {
		return err
	}
	time.Sleep(2 * time.Second)
	after, err := vmRSS(caddy.pid)
	if err != nil {
		return err
	}
	closeAll(conns)
	fmt.Printf("realtime: %d idle sockets, each joined to a channel: VmRSS of Caddy+pgrest %.1f MB before, %.1f MB after: %.1f KiB per socket\n",
		n, float64(before)/1024, float64(after)/1024, float64(after-before)/float64(n))
	return nil
}

// adminAddr is where the server under test serves Caddy's admin endpoint
// (-admin), off when empty.
var adminAddr string

// caddyProcess is Caddy serving pgrest, this binary started again.
type caddyProcess struct {
	port, pid int
	stop      func()
}

// startCaddy starts Caddy serving pgrest with dirs in a process of its
// own and returns once pgrest answers readyPath.
func startCaddy(ctx context.Context, dirs map[string]string, readyPath string) (*caddyProcess, error) {
	port, err := pgresttest.FreePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgrest-benchsockets-")
	if err != nil {
		return nil, err
	}
	text := pgresttest.Caddyfile(port, dirs, pgresttest.Options{LogLevel: "ERROR", Admin: adminAddr})
	config := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(config, []byte(text), 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "caddy.log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd := exec.Command(exe, "run", "--config", config, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), runAsCaddy+"=1")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
		logFile.Close()
		os.RemoveAll(dir)
	}
	if err := waitReady(ctx, fmt.Sprintf("http://127.0.0.1:%d", port)+readyPath); err != nil {
		stop()
		return nil, err
	}
	return &caddyProcess{port: port, pid: cmd.Process.Pid, stop: stop}, nil
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

// waitReady waits until pgrest answers url with 200.
func waitReady(ctx context.Context, url string) error {
	for {
		res, err := http.Get(url)
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
