package main

import (
	"fmt"
	"strings"
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) this process has used.
// PostgreSQL runs in processes of its own, so this is the load generator,
// Caddy, pgrest and the baselines: during one variant's window, that
// variant's client and server side.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuUse sums a variant's measured windows of one cell.
type cpuUse struct {
	cpu      time.Duration
	requests int64
}

func (c *cpuUse) add(s *sample) {
	c.cpu += s.cpu
	c.requests += s.finished
}

// perRequest is the CPU time one request cost, in microseconds.
func (c cpuUse) perRequest() float64 {
	if c.requests == 0 {
		return 0
	}
	return float64(c.cpu.Microseconds()) / float64(c.requests)
}

// printCPU prints, under a row, each variant's process CPU per request
// over all its measured windows, and pgrest's excess over raw: what HTTP
// on both ends, Caddy and pgrest add to a request's CPU.
func printCPU(r *cell, variants []*variant) {
	parts := make([]string, 0, len(variants)+1)
	for i, v := range variants {
		parts = append(parts, fmt.Sprintf("%s %.1fµs (%d req)", v.name, r.cpu[i].perRequest(), r.cpu[i].requests))
	}
	parts = append(parts, fmt.Sprintf("pgrest-raw %.1fµs", r.cpu[0].perRequest()-r.cpu[1].perRequest()))
	fmt.Printf("%-11s %5s cpu/req: %s\n", "", "", strings.Join(parts, "  "))
}
