package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// caddyProcess is Caddy+pgrest on the bench database in a process of its
// own (this program run as Caddy, or -caddy), which the memory
// measurement (rss.go) and the big reads (sizes.go) read the memory of.
type caddyProcess struct {
	cmd     *exec.Cmd
	exited  chan error
	dir     string
	baseURL string
}

// startCaddyProcess starts it; dirPrefix names its temporary folder.
func startCaddyProcess(e *env, opt options, dirPrefix string) (*caddyProcess, error) {
	exe := opt.caddyBinary
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, err
	}
	c := &caddyProcess{dir: dir, exited: make(chan error, 1)}
	port, err := pgresttest.FreePort()
	if err != nil {
		return nil, c.cleanUp(err)
	}
	c.baseURL = fmt.Sprintf("http://127.0.0.1:%d", port)
	config := filepath.Join(dir, "Caddyfile")
	text := pgresttest.Caddyfile(port, pgrestDirectives(e.authDSN, opt.pool), pgresttest.Options{LogLevel: "ERROR"})
	if err := os.WriteFile(config, []byte(text), 0o600); err != nil {
		return nil, c.cleanUp(err)
	}
	logFile, err := os.Create(c.logName())
	if err != nil {
		return nil, c.cleanUp(err)
	}
	c.cmd = exec.Command(exe, "run", "--config", config, "--adapter", "caddyfile")
	c.cmd.Env = append(os.Environ(), runAsCaddy+"=1")
	c.cmd.Stdout, c.cmd.Stderr = logFile, logFile
	if err := c.cmd.Start(); err != nil {
		logFile.Close()
		return nil, c.cleanUp(err)
	}
	go func() {
		c.exited <- c.cmd.Wait()
		logFile.Close()
	}()
	return c, nil
}

func (c *caddyProcess) logName() string { return filepath.Join(c.dir, "caddy.log") }

// cleanUp removes the process's folder and returns err.
func (c *caddyProcess) cleanUp(err error) error {
	os.RemoveAll(c.dir)
	return err
}

// withLog adds the process's log to err.
func (c *caddyProcess) withLog(err error) error {
	b, _ := os.ReadFile(c.logName())
	return fmt.Errorf("%w\nits log:\n%s", err, b)
}

// exitedEarly returns, as an error with the log, why the process has
// exited, or nil while it runs.
func (c *caddyProcess) exitedEarly() error {
	select {
	case werr := <-c.exited:
		c.exited <- werr
		return c.withLog(fmt.Errorf("Caddy exited: %v", werr))
	default:
		return nil
	}
}

// stop ends the process and removes its folder.
func (c *caddyProcess) stop() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
	_ = c.cleanUp(nil)
}
