package pgtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Replica is a hot standby of a throwaway cluster, streaming its WAL
// (scripts/pg.sh replica-init: pg_basebackup -R with a replication
// slot). It has the primary's roles, passwords and databases; Stop of the
// cluster destroys it too.
type Replica struct {
	primary *Cluster
	dir     string
	port    string
}

// StartReplica makes a streaming replica of the cluster and starts it on
// a free port. Only for throwaway clusters.
func (c *Cluster) StartReplica() (*Replica, error) {
	if c.dir == "" {
		return nil, ErrNotOurs
	}
	c.mu.Lock()
	n := len(c.replicas)
	r := &Replica{primary: c, dir: filepath.Join(c.dir, "replica"+strconv.Itoa(n+1))}
	c.replicas = append(c.replicas, r)
	c.mu.Unlock()
	if out, err := c.run("replica-init", c.dataDir(), c.port, r.dir); err != nil {
		return nil, fmt.Errorf("%w\n%s", err, out)
	}
	var lastErr error
	for range 3 {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		if _, err := c.run("start", r.dir, port); err != nil {
			lastErr = err
			continue
		}
		r.port = port
		return r, nil
	}
	return nil, lastErr
}

// Port is the port the replica listens on.
func (r *Replica) Port() string { return r.port }

// DSN rewrites a connection URL of the primary to reach the replica:
// the same user, password and database on the replica's port.
func (r *Replica) DSN(primaryDSN string) (string, error) {
	u, ok := parseURL(primaryDSN)
	if !ok {
		return "", fmt.Errorf("pgtest: %q is not a postgres:// URL", primaryDSN)
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil || port != r.primary.port {
		return "", fmt.Errorf("pgtest: %s is not a URL of the cluster on port %s", u.Redacted(), r.primary.port)
	}
	u.Host = net.JoinHostPort(host, r.port)
	return u.String(), nil
}

// Stop stops the replica in mode (pg_ctl's smart, fast or immediate).
// Its connections break; Start brings it back on the same port, where it
// catches up with the primary from its replication slot.
func (r *Replica) Stop(mode string) error {
	if out, err := r.primary.run("stop", r.dir, mode); err != nil {
		return fmt.Errorf("%w\n%s", err, out)
	}
	return nil
}

// Start starts a stopped replica again on its port.
func (r *Replica) Start() error {
	if out, err := r.primary.run("start", r.dir, r.port); err != nil {
		return fmt.Errorf("%w\n%s", err, out)
	}
	return nil
}

// destroy stops the replica and deletes its files.
func (r *Replica) destroy() error {
	if out, err := r.primary.run("destroy", r.dir); err != nil {
		return fmt.Errorf("%w\n%s", err, strings.TrimSpace(out))
	}
	return nil
}

// Kill ends the replica the way pg_ctl stop -m immediate does, at once:
// SIGQUIT to its postmaster, which quits its backends without a word to
// their clients, as a crash would. It returns when the postmaster is
// gone; Start brings the replica back. Unlike Stop, no script runs
// between the call and the signal, so a caller can time what follows.
func (r *Replica) Kill() error {
	dir, err := filepath.EvalSymlinks(r.dir)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		return fmt.Errorf("pgtest: the replica is not running: %w", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return fmt.Errorf("pgtest: postmaster.pid: %w", err)
	}
	if err := syscall.Kill(pid, syscall.SIGQUIT); err != nil {
		return fmt.Errorf("pgtest: signalling the replica's postmaster: %w", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for syscall.Kill(pid, 0) == nil && !zombie(pid) {
		if time.Now().After(deadline) {
			return errors.New("pgtest: the replica's postmaster outlived SIGQUIT by 30s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// zombie says the process has exited and waits to be reaped, which no one
// may do soon where the first process of a container reaps nothing.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}
