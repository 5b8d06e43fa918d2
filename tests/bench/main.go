// Command bench measures what pgrest costs on top of the database work a
// request needs, by running pgrest and two hand-written baselines side by
// side in one process, against one PostgreSQL, in one run.
//
//	go run ./tests/bench                  # defaults: -c 1,8,32 -d 5s, about 4 minutes
//	go run ./tests/bench -d 2s -c 8       # a quick run
//	make bench BENCH_FLAGS='-d 2s -c 1,8'
//
// It starts a throwaway PostgreSQL (tests/pgtest; PGREST_TEST_DSN points it
// at a running server instead), loads api.items with -rows rows,
// api.item_reviews with five reviews of each item, an empty api.item_log
// and the function api.item_price, and serves pgrest
// in-process from a Caddyfile adapted and loaded by Caddy itself, exactly
// as a user would configure it. Every request carries an HS256 token for
// the role webuser.
//
// # Workloads
//
//   - items_eq:    GET /items?id=eq.42, one row found by a filter on the
//     primary key.
//   - items_page:  GET /items?order=id&limit=25, a page of 25 rows.
//   - items_embed: GET /items?select=id,name,item_reviews(stars,body)&id=lt.26&order=id,
//     25 rows each embedding its 5 reviews (one-to-many, a lateral join
//     per row).
//   - items_post:  POST /item_log with Prefer: return=minimal, one row
//     inserted per request (201, no body). A write without checks: a
//     read-write transaction whose COMMIT is pipelined with the rest, one
//     round trip. Every variant's requests add rows to api.item_log. The
//     throwaway server runs with fsync and synchronous_commit off
//     (scripts/pg.sh), so a commit waits for no disk here: the ratios
//     show what pgrest adds, not what a durable commit costs.
//   - rpc_call:    POST /rpc/item_price with {"item_id": 42}, a stable SQL
//     function returning a numeric: read-only, one round trip.
//
// The baselines send the SQL text and arguments pgrest sends for each,
// obtained by running pgrest's parser, planner and SQL generator in this
// process against a schema cache loaded from the bench database. Before
// measuring, the bench checks that these texts are the ones pgrest
// actually sent, among the statements pgrest prepared on its connections
// (see verifyStatements).
//
// # Variants, each with a pool of -pool connections as the authenticator
//
//   - pgrest: HTTP/1.1 with keep-alive from a Go client in this process to
//     Caddy + pgrest: JWT verification (cached), request parsing, the
//     schema cache, SQL generation, one pipelined transaction, the
//     response.
//   - raw: the same transaction written by hand with pgconn, in pgrest's
//     round trips: one pipelined round trip of BEGIN READ ONLY (READ
//     WRITE for writes), the settings statement, the main statement and
//     COMMIT. The settings and main
//     statements are prepared once per connection. Same SQL text and the
//     same arguments as pgrest sends (the settings values are read back
//     from what pgrest set), so it is the best a Go service could do for
//     this request, minus HTTP.
//   - naive: the same statements one round trip each through pgx.Tx
//     (Begin, Exec set_config, Query, Commit), pgx's default statement
//     cache: what a straightforward Go service does.
//
// Every response of every variant is compared with the expected body (a
// write's baselines also check that one row was written), and any failure
// (error, unexpected status, wrong body) makes the run exit non-zero.
//
// # How it is timed
//
// For each workload and concurrency (-c), every variant first warms up
// (-warmup), then gets -d of measured load over -reps rounds. Within a
// round the three take turns in windows of about -slice (pgrest, raw,
// naive; raw, naive, pgrest; ...), so noise on this shared machine lands on
// all three alike. Each worker runs a closed loop (next request when the
// last is answered); a request counts when it succeeded inside its window.
// Throughput columns are the median over the rounds; the ratio columns are
// the median of the per-round ratios, with their range in brackets; the
// latencies are pgrest's over all rounds, measured at the client.
//
// # How to read the ratios
//
// pgrest/raw is the share of the hand-written ceiling pgrest reaches: 1.0
// would mean HTTP, Caddy and pgrest cost nothing. The load generator, Caddy,
// pgrest, the baselines and PostgreSQL all share this machine's cores, so
// the HTTP client's own work counts against pgrest too. At concurrency 1
// the gap is the latency HTTP, Caddy and pgrest add to each request; once
// the cores are saturated it is the CPU they spend per request (HTTP on
// both ends, routing, the token, the settings JSON). -cpuprofile shows
// where that goes.
// pgrest/naive above 1 means pgrest, HTTP included, beats a service that
// takes one round trip per statement: what pipelining buys. Compare ratios
// across commits and machines, not absolute req/s.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// options are the command line flags.
type options struct {
	conc   []int
	dur    time.Duration
	slice  time.Duration
	warmup time.Duration
	reps   int
	pool   int
	rows   int
	// cpuProfile is where to write a CPU profile of the whole process
	// (pgrest, Caddy, the load generator and the baselines).
	cpuProfile string
}

func main() {
	opt, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = run(ctx, opt)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	var opt options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	conc := fs.String("c", "1,8,32", "concurrencies, comma-separated")
	fs.DurationVar(&opt.dur, "d", 5*time.Second, "measured time per variant at each workload and concurrency, over -reps rounds")
	fs.DurationVar(&opt.slice, "slice", 250*time.Millisecond, "length of the windows in which the variants take turns")
	fs.DurationVar(&opt.warmup, "warmup", 500*time.Millisecond, "warm-up per variant before each workload and concurrency")
	fs.IntVar(&opt.reps, "reps", 3, "rounds per measurement; the median is reported")
	fs.IntVar(&opt.pool, "pool", 10, "connections in each pool (pgrest's db_pool and both baselines)")
	fs.IntVar(&opt.rows, "rows", 10000, "rows in api.items")
	fs.StringVar(&opt.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured load to `file` (go tool pprof)")
	if err := fs.Parse(args); err != nil {
		return opt, err
	}
	if fs.NArg() > 0 {
		return opt, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	for _, s := range strings.Split(*conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return opt, fmt.Errorf("-c: %q is not a concurrency", s)
		}
		opt.conc = append(opt.conc, n)
	}
	switch {
	case opt.reps < 1:
		return opt, errors.New("-reps: at least 1")
	case opt.slice < 50*time.Millisecond:
		return opt, errors.New("-slice: at least 50ms")
	case opt.dur/time.Duration(opt.reps) < opt.slice:
		return opt, errors.New("-d: a round (-d/-reps) must be at least one -slice long")
	case opt.warmup < 0:
		return opt, errors.New("-warmup: cannot be negative")
	case opt.pool < 1:
		return opt, errors.New("-pool: at least 1")
	case opt.rows < 100:
		return opt, errors.New("-rows: at least 100 (the workloads read ids up to 42)")
	}
	return opt, nil
}

// run sets everything up, measures every workload at every concurrency and
// prints the table. It returns an error when anything failed, including a
// single request.
func run(ctx context.Context, opt options) error {
	env, err := setUp(ctx, opt)
	if env != nil {
		defer env.close()
	}
	if err != nil {
		return err
	}

	cells := len(env.workloads) * len(opt.conc)
	estimate := time.Duration(cells) * 3 * (opt.dur + opt.warmup)
	fmt.Printf("pgrest benchmark: pgrest over HTTP vs hand-written pgx, side by side\n")
	fmt.Printf("go %s  GOMAXPROCS %d  NumCPU %d  %s/%s\n", runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	fmt.Printf("PostgreSQL %s\n", env.pgVersion)
	fmt.Printf("pool %d per variant, %d rows; per variant and cell: warm-up %s, then %s in %d rounds of ~%s windows taking turns; about %s\n\n",
		opt.pool, opt.rows, opt.warmup, opt.dur, opt.reps, opt.slice, estimate.Round(time.Second))

	variants := []*variant{
		{name: "pgrest", newOp: env.httpOp, keepLatency: true},
		{name: "raw", newOp: env.rawOp},
		{name: "naive", newOp: env.naiveOp},
	}
	if opt.cpuProfile != "" {
		f, err := os.Create(opt.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	printHeader()
	var failed []string
	for _, wl := range env.workloads {
		for _, c := range opt.conc {
			row, err := measureCell(ctx, opt, wl, c, variants)
			if err != nil {
				return err
			}
			printRow(row)
			for i, v := range variants {
				if row.errs[i] > 0 {
					failed = append(failed, fmt.Sprintf("%s c=%d %s: %d failed requests, first: %v",
						wl.name, c, v.name, row.errs[i], row.firstErr[i]))
				}
			}
			if len(failed) > 0 {
				return fmt.Errorf("requests failed; the numbers above are not valid:\n  %s", strings.Join(failed, "\n  "))
			}
		}
	}
	fmt.Println()
	fmt.Println("req/s: median over the rounds. ratios: median of the per-round ratios [min-max].")
	fmt.Println("p50/p99: pgrest's latency over all its rounds, at the client. No request failed.")
	return nil
}

// cell is one workload at one concurrency: the medians of every variant.
type cell struct {
	workload string
	conc     int
	rate     [3]float64 // pgrest, raw, naive
	vsRaw    ratio
	vsNaive  ratio
	p50, p99 time.Duration
	errs     [3]int64
	firstErr [3]error
}

type ratio struct{ median, min, max float64 }

// measureCell warms each variant up, then runs opt.reps rounds. In a
// round each variant gets opt.dur/opt.reps of load, cut into windows of
// about opt.slice that take turns, the order rotating, so that noise on the
// machine lands on all three alike.
func measureCell(ctx context.Context, opt options, wl *workload, conc int, variants []*variant) (*cell, error) {
	row := &cell{workload: wl.name, conc: conc}
	ops := make([][]op, len(variants))
	for i, v := range variants {
		ops[i] = make([]op, conc)
		for w := range ops[i] {
			ops[i][w] = v.newOp(wl)
		}
	}
	note := func(i int, s *sample) {
		row.errs[i] += s.errs
		if row.firstErr[i] == nil {
			row.firstErr[i] = s.firstErr
		}
	}
	if opt.warmup > 0 {
		for i, v := range variants {
			note(i, measure(ctx, opt.warmup, ops[i], v.keepLatency))
		}
	}
	perRound := opt.dur / time.Duration(opt.reps)
	windows := max(1, int((perRound+opt.slice/2)/opt.slice))
	window := perRound / time.Duration(windows)
	rates := make([][]float64, len(variants))
	var latencies []time.Duration
	for rep := range opt.reps {
		round := make([]sample, len(variants))
		for n := range windows {
			for k := range variants {
				i := (rep + n + k) % len(variants)
				// Garbage from the previous window is collected now, not
				// on the next variant's time.
				runtime.GC()
				round[i].add(measure(ctx, window, ops[i], variants[i].keepLatency))
				if err := ctx.Err(); err != nil {
					return nil, fmt.Errorf("interrupted: %w", err)
				}
			}
		}
		for i := range variants {
			note(i, &round[i])
			rates[i] = append(rates[i], round[i].rate())
			latencies = append(latencies, round[i].latencies...)
		}
	}
	for i := range variants {
		row.rate[i] = median(rates[i])
	}
	row.vsRaw = ratios(rates[0], rates[1])
	row.vsNaive = ratios(rates[0], rates[2])
	row.p50 = percentile(latencies, 50)
	row.p99 = percentile(latencies, 99)
	return row, nil
}

// ratios summarises a[i]/b[i] over the rounds.
func ratios(a, b []float64) ratio {
	r := make([]float64, len(a))
	for i := range a {
		if b[i] > 0 {
			r[i] = a[i] / b[i]
		}
	}
	return ratio{median: median(r), min: slices.Min(r), max: slices.Max(r)}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// percentile is the nearest-rank percentile of ds.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := (len(s)*p + 99) / 100
	return s[max(rank, 1)-1]
}

const rowFormat = "%-11s %5s %13s %10s %12s  %-17s %-17s %10s %10s\n"

func printHeader() {
	fmt.Printf(rowFormat, "workload", "conc", "pgrest req/s", "raw req/s", "naive req/s",
		"pgrest/raw", "pgrest/naive", "pgrest p50", "pgrest p99")
}

func printRow(r *cell) {
	fmt.Printf(rowFormat, r.workload, strconv.Itoa(r.conc),
		fmt.Sprintf("%.0f", r.rate[0]), fmt.Sprintf("%.0f", r.rate[1]), fmt.Sprintf("%.0f", r.rate[2]),
		r.vsRaw.String(), r.vsNaive.String(), ms(r.p50), ms(r.p99))
}

func (r ratio) String() string {
	return fmt.Sprintf("%.2f [%.2f-%.2f]", r.median, r.min, r.max)
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}
