package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// The ceiling is what a server answering a workload's request could at
// most reach on this machine: the cost of Caddy's bare route (H) and the
// cost of the hand-written pgx pipeline of pgrest's transaction (D), each
// measured alone, added up: 1/(1/H+1/D) requests a second. It is the
// figure of the ceiling measurement kept beside the project (a stock
// Caddy, wrk and a pgx program), measured here in the same run, the same
// windows and with the same HTTP client as pgrest:
//
//   - route (H): a site of the same Caddy config per workload, made of
//     stock handlers only, shaped as the ceiling's "route": matchers on
//     the method, the path and a Bearer Authorization header, two
//     response headers, and respond with the body and status pgrest
//     answers the workload with (401 without the header). No database.
//   - pipeline (D): the raw baseline's pipeline (rawPipeline: BEGIN, the
//     settings, the main statement, COMMIT, the session reset, one round
//     trip, every statement prepared) on a pool of one connection per
//     in-flight request, opened before measuring, as the ceiling sizes
//     it. No HTTP.
//   - bare pipeline (D₀): the same pipeline without the session reset,
//     the transaction the ceiling measurement beside the project times
//     (BEGIN, the settings, the main statement, COMMIT). pgrest's share
//     of 1/(1/H+1/D₀) is its share with the reset paid for by pgrest
//     rather than by the ceiling; the goals are set against it.
//
// When the cores are saturated the costs per request add up, so the
// harmonic figure is the bound (at concurrency 1 the latencies add up,
// and it is the bound too). pgrest/ceiling is the share of it pgrest
// reaches; caddy+raw/ceiling the share a Caddy handler running the same
// pipeline reaches (see caddyraw.go for why it falls short).

const (
	routeVariant    = "route"
	pipelineVariant = "pipeline"
	bareVariant     = "pipeline-bare"
)

// routeSites are the route (H) sites' Caddyfile blocks, one per workload
// on a port of its own, with their base URLs by workload name. The
// bodies are the ones pgrest answered with (learn).
func routeSites(workloads []*workload) (text string, urls map[string]string, err error) {
	urls = map[string]string{}
	var b strings.Builder
	for _, wl := range workloads {
		port, err := pgresttest.FreePort()
		if err != nil {
			return "", nil, err
		}
		if strings.ContainsRune(string(wl.body), '`') {
			return "", nil, fmt.Errorf("%s: the body holds a backquote, which the route site cannot quote", wl.name)
		}
		respond := strconv.Itoa(wl.status)
		if len(wl.body) > 0 {
			respond = "`" + string(wl.body) + "` " + respond
		}
		fmt.Fprintf(&b, `http://127.0.0.1:%d {
	@w {
		method %s
		path %s
		header Authorization "Bearer *"
	}
	route {
		header @w Content-Type "application/json; charset=utf-8"
		header @w Content-Range "0-0/*"
		respond @w %s
		respond 401
	}
}
`, port, wl.method, wl.path, respond)
		urls[wl.name] = fmt.Sprintf("http://127.0.0.1:%d", port)
	}
	return b.String(), urls, nil
}

// routeTarget is the load generator's name for the route site of a
// workload: each workload has its own.
func routeTarget(workload string) string { return routeVariant + "/" + workload }

// routeOp is the route variant's op in this process (-client in).
func (e *env) routeOp(wl *workload) op { return e.opAt(e.routeURLs[wl.name])(wl) }

// newCeilingPool is the pipeline (D) variant's pool: the raw baseline's,
// with size connections opened before it is used.
func newCeilingPool(ctx context.Context, dsn string, size int, workloads []*workload) (*pgxpool.Pool, error) {
	pool, err := newRawPool(ctx, dsn, size, workloads)
	if err != nil {
		return nil, err
	}
	conns := make([]*pgxpool.Conn, 0, size)
	defer func() {
		for _, c := range conns {
			c.Release()
		}
	}()
	for range size {
		c, err := pool.Acquire(ctx)
		if err != nil {
			pool.Close()
			return nil, err
		}
		conns = append(conns, c)
	}
	return pool, nil
}

// ceilingOf is 1/(1/h+1/d), 0 when either is.
func ceilingOf(h, d float64) float64 {
	if h <= 0 || d <= 0 {
		return 0
	}
	return 1 / (1/h + 1/d)
}

// ceilingRatios are variant i's per-round rates over the per-round
// ceilings of the cell.
func (r *cell) ceilingRatios(i, route, pipeline int) ratio {
	ceil := make([]float64, len(r.rounds[i]))
	for k := range ceil {
		ceil[k] = ceilingOf(r.rounds[route][k], r.rounds[pipeline][k])
	}
	return ratios(r.rounds[i], ceil)
}

// ceiling is the cell's ceiling, the median of the per-round ones.
func (r *cell) ceiling(route, pipeline int) float64 {
	ceil := make([]float64, len(r.rounds[route]))
	for k := range ceil {
		ceil[k] = ceilingOf(r.rounds[route][k], r.rounds[pipeline][k])
	}
	return median(ceil)
}

// printCeiling prints every cell's ceiling, pgrest's and caddy+raw's
// share of it, their p99 beside H's and D's, and the share of the
// machine that other processes used meanwhile.
func printCeiling(variants []*variant, rows []*cell, dbWhyNot string) {
	route, pipeline, bare := indexOf(variants, routeVariant), indexOf(variants, pipelineVariant), indexOf(variants, bareVariant)
	cr := indexOf(variants, "caddy+raw")
	fmt.Println("Ceiling: H = Caddy's bare route (stock handlers, the workload's body, no database), D = the hand-written pgx pipeline of")
	fmt.Println("pgrest's transaction (session reset included, one connection per in-flight request, no HTTP), D₀ = the same without")
	fmt.Println("the session reset (the ceiling measurement's transaction), each measured alone; ceiling = 1/(1/H+1/D), ceiling₀ with D₀, per round.")
	fmt.Printf("%-11s %4s %8s %8s %8s %8s %8s %8s %9s %-17s %-17s %-17s %9s %9s %9s %9s %7s\n", "workload", "conc", "H", "D", "D₀",
		"ceiling", "ceiling₀", "pgrest", "caddy+raw", "pgrest/ceiling₀", "pgrest/ceiling", "caddy+raw/ceiling",
		"p99 pgrest", "caddy+raw", "H", "D", "other %")
	for _, r := range rows {
		fmt.Printf("%-11s %4d %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %9.0f %-17s %-17s %-17s %9s %9s %9s %9s %7s\n", r.workload, r.conc,
			r.rate[route], r.rate[pipeline], r.rate[bare], r.ceiling(route, pipeline), r.ceiling(route, bare), r.rate[0], r.rate[cr],
			r.ceilingRatios(0, route, bare), r.ceilingRatios(0, route, pipeline), r.ceilingRatios(cr, route, pipeline),
			ms(r.p99s[0]), ms(r.p99s[cr]), ms(r.p99s[route]), ms(r.p99s[pipeline]), otherShare(r.other, dbWhyNot))
	}
	fmt.Println("Ratios: median of the per-round ratios [min-max]; p99 over all the variant's rounds, at the client.")
	fmt.Println("other %: the machine's CPU time used by processes other than the bench's (this process, the load generator,")
	fmt.Println("PostgreSQL) during the cell's windows, as a share of all its cores: other tenants' load, which lowers every figure.")
	if dbWhyNot != "" {
		fmt.Printf("other %% is not measured: PostgreSQL's CPU time is not (%s).\n", dbWhyNot)
	}
}

func otherShare(f float64, dbWhyNot string) string {
	if dbWhyNot != "" || math.IsNaN(f) {
		return "-"
	}
	return fmt.Sprintf("%.0f", 100*f)
}

// machineBusy is the CPU time all the machine's processes have used, on
// all its cores, from /proc/stat: user, nice, system, irq and softirq
// (not idle, iowait or steal), 0 when it cannot be read.
func machineBusy() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	var busy int64
	for _, i := range []int{1, 2, 3, 6, 7} { // user nice system irq softirq
		n, _ := strconv.ParseInt(f[i], 10, 64)
		busy += n
	}
	return time.Duration(busy) * clockTick
}

// clockTick is /proc's unit of CPU time, USER_HZ: 100 a second on Linux
// (sysconf(_SC_CLK_TCK) on every architecture Go runs on there).
const clockTick = 10 * time.Millisecond

// otherLoad is the share of the machine's cores that processes other
// than the bench's used over the windows of s: the machine's busy time
// less the CPU time measured for this process, the load generator and
// PostgreSQL.
func otherLoad(s *sample) float64 {
	if s.wall <= 0 || s.busy <= 0 {
		return math.NaN()
	}
	other := s.busy - s.cpu - s.clientCPU - s.dbCPU
	return max(0, float64(other)/(float64(s.wall)*float64(runtime.NumCPU())))
}
