package caddymodule

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// postmasterOf is the pid of the postmaster of the server dsn names: the
// parent of a backend of it. Benchmarks read its children's CPU time to
// count what PostgreSQL spends per request beside this process's.
func postmasterOf(ctx context.Context, dsn string) (int, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.Background())
	var backend int
	if err := conn.QueryRow(ctx, "select pg_backend_pid()").Scan(&backend); err != nil {
		return 0, err
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", backend))
	if err != nil {
		return 0, err
	}
	// The fields after the command, which is in parentheses and may hold
	// spaces: state, then the parent's pid.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", backend, s)
	}
	return strconv.Atoi(f[1])
}

// serverCPU is the CPU time the postmaster's children have used, by pid,
// from the scheduler's nanosecond counts.
func serverCPU(postmaster int) map[int]time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", postmaster, postmaster))
	if err != nil {
		return nil
	}
	m := map[int]time.Duration{}
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			continue
		}
		if s, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid)); err == nil {
			if fs := strings.Fields(string(s)); len(fs) > 0 {
				if ns, err := strconv.ParseInt(fs[0], 10, 64); err == nil {
					m[pid] = time.Duration(ns)
				}
			}
		}
	}
	return m
}

// serverCPUSince is what the server's processes used since before: a
// process's growth, all its time when it started in between.
func serverCPUSince(postmaster int, before map[int]time.Duration) time.Duration {
	var t time.Duration
	for pid, d := range serverCPU(postmaster) {
		t += d - before[pid]
	}
	return t
}
