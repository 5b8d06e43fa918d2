package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
)

// The memory of Caddy+pgrest is measured apart from the tables: in the
// bench's process, the load generator and the baselines would count too.
// So the bench starts itself again as Caddy (runAsCaddy, as tests/nodes
// does: the same modules as cmd/caddy, Caddy's standard ones and pgrest,
// plus the bench's own), loads the Caddyfile of the in-process pgrest into
// it, sends it rssLoad of load per workload of rssWorkloads at -rss
// connections, every answer checked, and reads its VmRSS and VmHWM.

// runAsCaddy makes the bench binary run Caddy's command line.
const runAsCaddy = "PGREST_BENCH_RUN_CADDY"

func runCaddy() { caddycmd.Main() }

const rssLoad = 2 * time.Second

// rssWorkloads are the workloads sent to the separate process: the
// one-row read and the page of 25 rows.
var rssWorkloads = []string{"items_eq", "items_page"}

// rssEstimate is what the memory measurement adds to a run.
var rssEstimate = time.Duration(len(rssWorkloads))*rssLoad + 3*time.Second

type rssResult struct {
	binary     string // the Caddy measured, when not this program
	conc, pool int
	requests   int64
	// rss is VmRSS after the load, hwm VmHWM, the peak: in kB.
	rss, hwm int64
	startRSS int64 // VmRSS once the schema cache is loaded, before the load
}

func (r *rssResult) peakMB() float64 { return float64(r.hwm) / 1024 }

func (r *rssResult) print() {
	binary := "this program run as Caddy"
	if r.binary != "" {
		binary = r.binary
	}
	fmt.Printf("Memory of Caddy+pgrest alone (a process of its own: %s; db_pool %d), after %d requests at %d connections (%s):\n",
		binary, r.pool, r.requests, r.conc, strings.Join(rssWorkloads, ", "))
	fmt.Printf("  VmRSS %.1f MB after the load (%.1f MB before it), peak VmHWM %.1f MB\n",
		float64(r.rss)/1024, float64(r.startRSS)/1024, r.peakMB())
}

// measureRSS starts Caddy+pgrest in a process of its own, loads it and
// reads its memory.
func measureRSS(ctx context.Context, e *env, opt options) (*rssResult, error) {
	proc, err := startCaddyProcess(e, opt, "pgrest-bench-rss-")
	if err != nil {
		return nil, err
	}
	defer proc.stop()
	cmd, withLog := proc.cmd, proc.withLog

	to := *e
	to.baseURL = proc.baseURL
	to.client = &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		MaxIdleConns:        2 * opt.rssConc,
		MaxIdleConnsPerHost: 2 * opt.rssConc,
		DisableCompression:  true,
	}}
	defer to.client.CloseIdleConnections()
	byName := map[string]*workload{}
	for _, wl := range e.workloads {
		byName[wl.name] = wl
	}
	// Ready once it answers the first workload: its schema cache is loaded.
	first := to.httpOp(byName[rssWorkloads[0]])
	for try := 0; ; try++ {
		err := first(ctx)
		if err == nil {
			break
		}
		if err := proc.exitedEarly(); err != nil {
			return nil, err
		}
		if try == 100 || ctx.Err() != nil {
			return nil, withLog(fmt.Errorf("Caddy+pgrest does not answer: %w", err))
		}
		time.Sleep(100 * time.Millisecond)
	}
	res := &rssResult{binary: opt.caddyBinary, conc: opt.rssConc, pool: opt.pool}
	if res.startRSS, _, err = procMemory(cmd.Process.Pid); err != nil {
		return nil, err
	}
	for _, name := range rssWorkloads {
		ops := make([]op, opt.rssConc)
		for i := range ops {
			ops[i] = to.httpOp(byName[name])
		}
		s := measure(ctx, rssLoad, ops, false)
		if s.errs > 0 {
			return nil, withLog(fmt.Errorf("%s: %d failed requests, first: %v", name, s.errs, s.firstErr))
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res.requests += s.served
	}
	if res.rss, res.hwm, err = procMemory(cmd.Process.Pid); err != nil {
		return nil, err
	}
	return res, nil
}

// procMemory reads a process's VmRSS and VmHWM, in kB.
func procMemory(pid int) (rss, hwm int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *int64
		switch name {
		case "VmRSS":
			dst = &rss
		case "VmHWM":
			dst = &hwm
		default:
			continue
		}
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			return 0, 0, fmt.Errorf("/proc/%d/status: unexpected %s line %q", pid, name, sc.Text())
		}
		if *dst, err = strconv.ParseInt(f[0], 10, 64); err != nil {
			return 0, 0, err
		}
	}
	if rss == 0 || hwm == 0 {
		return 0, 0, fmt.Errorf("/proc/%d/status has no VmRSS or VmHWM", pid)
	}
	return rss, hwm, nil
}
