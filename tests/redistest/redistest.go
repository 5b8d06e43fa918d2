// Package redistest runs a throwaway redis-server for tests: on a free
// loopback port, in a folder of the test's own, without persistence. It
// can be stopped and started again on the same port, as an outage would
// stop it. The server is installed by `bash scripts/pg.sh redis-ensure`
// (.ci/run does so).
package redistest

import (
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// Server is a running redis-server.
type Server struct {
	// URL is the server's redis:// URL.
	URL  string
	port int
	dir  string
	cmd  *exec.Cmd
}

// Start runs a redis-server; it stops when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	dir := t.TempDir()
	s, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// New runs a redis-server keeping its files in dir, for a program (the
// benchmark); Stop ends it.
func New(dir string) (*Server, error) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return nil, fmt.Errorf("redis-server not found; run: bash scripts/pg.sh redis-ensure")
	}
	port, err := pgresttest.FreePort()
	if err != nil {
		return nil, err
	}
	s := &Server{URL: fmt.Sprintf("redis://127.0.0.1:%d/0", port), port: port, dir: dir}
	return s, s.start()
}

// Start starts the server again after Stop, on the same port.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
}

func (s *Server) start() error {
	s.cmd = exec.Command("redis-server", "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir)
	if err := s.cmd.Start(); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)))
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			s.Stop()
			return fmt.Errorf("redis-server did not listen on %d: %w", s.port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop ends the server (SIGKILL, as a crash would) and waits for it.
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}
