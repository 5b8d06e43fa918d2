package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// processCPU is the CPU time, user and system, this process has used on
// all its threads: the load generator, Caddy, pgrest and the baselines'
// pgx clients.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serverCPU reads the CPU time of a local PostgreSQL server: its
// postmaster and every process it started (the backends of every
// variant's connections, and the background processes, the WAL writer
// among them, which a write keeps busy).
type serverCPU struct {
	postmaster int
}

// findServerCPU finds the postmaster of the server at superDSN, through
// the parent of the backend serving the connection. It returns nil and why
// when the server's processes cannot be read: a server named by
// PGREST_TEST_DSN is not ours, may be remote, and may serve others.
func findServerCPU(ctx context.Context, superDSN string) (*serverCPU, string) {
	if os.Getenv(pgtest.EnvDSN) != "" {
		return nil, pgtest.EnvDSN + " names a server this bench did not start"
	}
	conn, err := pgx.Connect(ctx, superDSN)
	if err != nil {
		return nil, err.Error()
	}
	defer conn.Close(context.Background())
	var backend int
	if err := conn.QueryRow(ctx, "select pg_backend_pid()").Scan(&backend); err != nil {
		return nil, err.Error()
	}
	stat, err := readStat(backend)
	if err != nil {
		return nil, fmt.Sprintf("cannot read the backend's process: %v", err)
	}
	s := &serverCPU{postmaster: stat.ppid}
	if _, err := s.children(); err != nil {
		return nil, fmt.Sprintf("cannot list the postmaster's processes: %v", err)
	}
	if s.total() <= 0 {
		return nil, "the server's processes show no CPU time"
	}
	return s, ""
}

// total is the CPU time the server's processes have used. A process that
// ended since the last reading takes its time with it: the bench's pools
// keep their connections, so during the load none does (but see
// snapshot).
func (s *serverCPU) total() time.Duration {
	var t time.Duration
	for _, d := range s.snapshot() {
		t += d
	}
	return t
}

// snapshot is the CPU time of each of the server's processes, by pid.
func (s *serverCPU) snapshot() map[int]time.Duration {
	pids, err := s.children()
	if err != nil {
		return nil
	}
	m := make(map[int]time.Duration, len(pids)+1)
	for _, pid := range append(pids, s.postmaster) {
		m[pid] = processTime(pid)
	}
	return m
}

// since is the CPU time the server's processes used from the snapshot
// before to the one after: a process's growth, or all its time when it
// started in between. A process that ended in between (an autovacuum
// worker, say) counts nothing, rather than taking its earlier time off
// the window as a difference of totals would.
func since(before, after map[int]time.Duration) time.Duration {
	var t time.Duration
	for pid, d := range after {
		t += d - before[pid]
	}
	return t
}

// children lists the postmaster's child processes.
func (s *serverCPU) children() ([]int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", s.postmaster, s.postmaster))
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// processTime is a single-threaded process's CPU time: the scheduler's
// nanosecond count from /proc/<pid>/schedstat, or else utime + stime from
// /proc/<pid>/stat, in clock ticks (10 ms on Linux's usual 100 Hz). A
// process that is gone counts 0.
func processTime(pid int) time.Duration {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid)); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			if ns, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				return time.Duration(ns)
			}
		}
	}
	st, err := readStat(pid)
	if err != nil {
		return 0
	}
	return time.Duration(st.utime+st.stime) * 10 * time.Millisecond
}

// procStat is what the bench reads of /proc/<pid>/stat.
type procStat struct {
	ppid         int
	utime, stime int64 // clock ticks
}

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	// The command name, in parentheses, may hold spaces: the fields
	// counted below start after its closing parenthesis.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return procStat{}, errors.New("unexpected /proc stat format")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
	if len(f) < 13 {
		return procStat{}, errors.New("unexpected /proc stat format")
	}
	var st procStat
	st.ppid, _ = strconv.Atoi(f[1])
	st.utime, _ = strconv.ParseInt(f[11], 10, 64)
	st.stime, _ = strconv.ParseInt(f[12], 10, 64)
	return st, nil
}

// measureCPU runs a window of load with the CPU time it cost: this
// process's from the window's start to the end of a garbage collection
// after its last request (so the variant's garbage is collected on its
// own account), plus the load generator's over its window when the load
// came from there (window reports it in the sample's cpu); and the
// server's around that. The server is read outside this process's
// interval, so reading /proc costs the variant nothing.
func measureCPU(db *serverCPU, window func() *sample) *sample {
	busy0, wall0 := machineBusy(), time.Now()
	var db0 map[int]time.Duration
	if db != nil {
		db0 = db.snapshot()
	}
	c0 := processCPU()
	g0 := readGC()
	s := window()
	// The collections the window's load caused, not the one that ends it.
	s.gc = readGC().minus(g0)
	runtime.GC()
	s.cpu += processCPU() - c0
	if db != nil {
		s.dbCPU = since(db0, db.snapshot())
	}
	s.busy, s.wall = machineBusy()-busy0, time.Since(wall0)
	return s
}
