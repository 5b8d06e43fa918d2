package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// Diagnostic variants, for finding where pgrest's latency tail comes
// from, measured in the same windows as the rest (off by default):
//
//   - -diag-pool 4,32 adds pgrest served by more sites of the same Caddy,
//     each with db_pool set to one of the numbers (variants pgrest:pool4,
//     pgrest:pool32): how waiting for a connection, or more backends
//     than cores, moves the tail.
//   - -diag-gogc 400 adds pgrest with this process's garbage collector
//     target set to that percentage during its windows (pgrest:gogc400):
//     how much of the tail garbage collection makes. The default stays
//     what a user runs; this is a diagnosis only.

// diagPoolSites are the extra sites' Caddyfile blocks, one per pool size,
// with their base URLs by variant name.
func diagPoolSites(authDSN string, pools []int) (text string, urls map[string]string, err error) {
	urls = map[string]string{}
	var b bytes.Buffer
	for _, n := range pools {
		port, err := pgresttest.FreePort()
		if err != nil {
			return "", nil, err
		}
		writeSite(&b, port, pgrestDirectives(authDSN, n), nil)
		urls[diagPoolName(n)] = fmt.Sprintf("http://127.0.0.1:%d", port)
	}
	return b.String(), urls, nil
}

func diagPoolName(pool int) string { return "pgrest:pool" + strconv.Itoa(pool) }

func diagGOGCName(percent int) string { return "pgrest:gogc" + strconv.Itoa(percent) }

// waitReady waits until pgrest at url answers wl: its schema cache is
// loaded in the background after the config loads.
func (e *env) waitReady(ctx context.Context, url string, wl *workload) error {
	to := *e
	to.baseURL = url
	check := to.httpOp(wl)
	var err error
	for try := 0; try < 50; try++ {
		if err = check(ctx); err == nil {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("pgrest at %s does not answer: %w", url, err)
}

// withGCPercent runs f with this process's GOGC at percent (0: as is).
func withGCPercent(percent int, f func() *sample) *sample {
	if percent == 0 {
		return f()
	}
	old := debug.SetGCPercent(percent)
	defer debug.SetGCPercent(old)
	return f()
}

// opAt is pgrest's op sent to the pgrest site at url.
func (e *env) opAt(url string) func(wl *workload) op { return e.opWith(url, nil) }

// opWith is opAt with headers added to each request's (opAt's when nil).
func (e *env) opWith(url string, header http.Header) func(wl *workload) op {
	return func(wl *workload) op {
		to := *e
		to.baseURL, to.header = url, header
		return to.httpOp(wl)
	}
}

// sortedDirectives are dirs as Caddyfile lines, in name order.
func sortedDirectives(dirs map[string]string) []string {
	var lines []string
	for name, value := range dirs {
		lines = append(lines, name+" "+value)
	}
	slices.Sort(lines)
	return lines
}
