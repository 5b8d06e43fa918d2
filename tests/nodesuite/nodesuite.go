// Package nodesuite holds what the launchers of pgrest's JavaScript suites
// (tests/client/server, tests/postgrestjs/server) share: their main, the
// throwaway PostgreSQL and the Caddy serving pgrest they start (launch.go),
// finding a new enough Node.js, waiting until pgrest answers, running the suite's
// command with its output on ours, and showing the end of the server's
// log when the suite fails.
package nodesuite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// SignalContext is the launcher's context: it ends on SIGINT or SIGTERM.
// SIGINT from the terminal reaches node too (one process group); node
// ends its run and the launcher tears down after it. A closed output
// pipe (| head) must not kill the launcher before the teardown, so
// SIGPIPE is ignored.
func SignalContext() (context.Context, context.CancelFunc) {
	signal.Ignore(syscall.SIGPIPE)
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// Logger prints the launcher's own lines, prefixed with its name.
type Logger string

// Printf prints one line to the standard error.
func (l Logger) Printf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, string(l)+": "+format+"\n", args...)
}

// Fail prints err and returns the exit code 1.
func (l Logger) Fail(err error) int {
	l.Printf("%v", err)
	return 1
}

// Interrupted says so and returns the exit code 130.
func (l Logger) Interrupted() int {
	l.Printf("interrupted")
	return 130
}

// NodeCommand is the command that runs Node.js major version minMajor or
// newer: the node in PATH when it is new enough, else node@<minMajor> from
// the npm registry through npx. Commands of node's own folder (npx jest)
// take the same path: cmd[len(cmd)-1] is "node" and may be replaced.
func NodeCommand(minMajor int, log Logger) ([]string, error) {
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("running node --version (Node.js %d or newer is needed): %w", minMajor, err)
	}
	var major int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "v%d.", &major); err == nil && major >= minMajor {
		return []string{"node"}, nil
	}
	log.Printf("node in PATH is %s; running Node.js %d through npx", strings.TrimSpace(string(out)), minMajor)
	return []string{"npx", "-y", "-p", fmt.Sprintf("node@%d", minMajor), "node"}, nil
}

// Run runs argv in dir with env added to ours, its output going straight
// to ours, and returns its exit code (1 when a signal killed it). When ctx
// ends first (an interrupt: the process has had the terminal's SIGINT
// too, or gets one now) it is killed after a grace period.
func Run(ctx context.Context, dir string, argv, env []string) (int, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			err = <-done
		}
	}
	if err == nil {
		return 0, nil
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		if code := exitErr.ExitCode(); code > 0 {
			return code, nil
		}
		return 1, nil // killed by a signal
	}
	return 0, err
}

// WaitReady waits until a GET of url answers 200: the schema cache is
// loaded in the background after Caddy starts, and pgrest answers 503
// until then. Another status is an error at once.
func WaitReady(ctx context.Context, url string) error {
	client := &http.Client{Timeout: 10 * time.Second}
	var last string
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		res, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("status %d: %s", res.StatusCode, body)
			if res.StatusCode != http.StatusServiceUnavailable {
				return fmt.Errorf("GET %s: %s", url, last)
			}
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pgrest not ready: %s", last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// PrintTail prints the last n lines of the server log at path, for a
// failed suite.
func (l Logger) PrintTail(path string, n int) {
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	l.Printf("the server log's last %d lines:", len(lines))
	fmt.Fprintln(os.Stderr, strings.Join(lines, "\n"))
}
