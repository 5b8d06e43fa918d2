// Command bench measures what pgrest costs on top of the database work a
// request needs, by running pgrest, the same transaction behind a bare
// Caddy route, and two hand-written baselines side by side in one
// process, against one PostgreSQL, in one run; then the memory of
// Caddy+pgrest alone, and what clients hanging up mid-request cost.
//
//	go run ./tests/bench                  # defaults: -c 8,32 -d 5s, 5 to 7 minutes
//	go run ./tests/bench -d 2s -c 8       # a quick run
//	go run ./tests/bench -c 1,8,32        # latency at concurrency 1 too
//	make bench BENCH_FLAGS='-d 2s -c 1,8'
//
// It starts a throwaway PostgreSQL (tests/pgtest; PGREST_TEST_DSN points it
// at a running server instead), loads api.items with -rows rows,
// api.item_reviews with five reviews of each item, an empty api.item_log,
// api.item_stock with one row, the function api.item_price and, for the
// disconnect phase, api.bench_sleep, and serves pgrest in-process from a Caddyfile adapted
// and loaded by Caddy itself, exactly as a user would configure it. Every
// request to pgrest carries an HS256 token for the role webuser.
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
//   - item_upsert: POST /item_stock with {"item_id": 42, "qty": 7} and
//     Prefer: resolution=merge-duplicates, return=minimal: an upsert on
//     the primary key of a row that exists (200), the same one-round-trip
//     read-write transaction.
//   - item_patch:  PATCH /item_stock?item_id=eq.42 with {"qty": 7} and
//     Prefer: return=minimal: one row updated by its key (204), the same.
//     Both write row 42 at every request, each worker in turn: the row's
//     lock is held only inside the one round trip, for every variant
//     alike.
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
//   - pgrest: HTTP/1.1 with keep-alive from a Go client to Caddy +
//     pgrest: JWT verification (cached), request parsing, the schema
//     cache, SQL generation, one pipelined transaction, the response. The
//     client runs in a process of its own (-client own, the default), as
//     a real client does, so that its garbage does not count towards the
//     collections pgrest lives through (client.go); -client in runs it in
//     this process, -client both measures both ways (pgrest:in,
//     caddy+raw:in).
//   - caddy+raw: the ceiling the throughput goal is set against, the
//     pipelined loop with Caddy's bare routing cost added, measured
//     directly: the same HTTP client sends the same request to a second
//     site of the same Caddy config as pgrest's (one site address, one
//     handler, the same global options), whose handler, a Caddy module
//     registered by this program (caddyraw.go), finds the workload by
//     the request target, reads the body, runs the raw baseline's
//     transaction on a pool of its own and writes the body with pgrest's
//     status. No token, no parsing, no planning, no settings JSON, no
//     response headers beyond Content-Type: what pgrest does beyond that
//     is what pgrest/caddy+raw measures.
//   - raw: the same transaction written by hand with pgconn, in pgrest's
//     round trips: one pipelined round trip of BEGIN READ ONLY (READ
//     WRITE for writes), the settings statement, the main statement,
//     COMMIT and pgrest's session reset after it (CLOSE ALL, RESET ALL
//     and the rest of executor/session_reset.go). Every statement is
//     prepared once per connection, as pgrest prepares them. Same SQL text and the
//     same arguments as pgrest sends (the settings values are read back
//     from what pgrest set), so it is the best a Go service could do for
//     this request, minus HTTP.
//   - naive: the same statements one round trip each through pgx.Tx
//     (Begin, Exec set_config, Query, Commit), pgx's default statement
//     cache: what a straightforward Go service does.
//   - raw@pgrest: the raw loop, same workers and pool, paced at the
//     throughput pgrest just reached in the cell (over its last two
//     windows, or its warm-up before the first): workers take the slots
//     of one shared schedule, one request every 1/rate, and wait for
//     them (pace.go); a window that fell short of its pace owes the
//     rest to the next ones (paceDebt). pgrest/raw@pgrest in the table
//     shows how closely its throughput matched pgrest's. -pace adds the
//     loop at other multiples of pgrest's throughput (-pace
//     0.25,0.5,1,2), to see how PostgreSQL's cost per request moves
//     with the pace; an empty -pace leaves them all out.
//   - route (H) and pipeline (D): the two halves of the ceiling, each
//     alone (ceiling.go): Caddy's bare route answering each workload's
//     request with pgrest's body from stock handlers (a site per
//     workload, matchers, two headers, respond), sent by the same HTTP
//     client; and the raw baseline's pipeline on a pool of one
//     connection per in-flight request, opened before measuring. The
//     ceiling table sets pgrest and caddy+raw against 1/(1/H+1/D) of the
//     same round, with their p99 beside H's and D's and the share of the
//     machine other processes used meanwhile (other %).
//   - caddy+raw@pgrest: caddy+raw paced the same way at pgrest's
//     throughput, by the load generator. It is what the Go side's goal
//     is measured against (see CPU time per request).
//
// Every response of every variant is compared with the expected body (a
// write's baselines also check that one row was written), and any failure
// (error, unexpected status, wrong body) makes the run exit non-zero.
//
// # How it is timed
//
// For each workload and concurrency (-c), every variant first warms up
// (-warmup), then gets -d of measured load over -reps rounds. Within a
// round the variants take turns in windows of about -slice (pgrest,
// caddy+raw, raw, naive; caddy+raw, raw, naive, pgrest; ...), so noise on
// this shared machine lands on all of them alike. Each worker runs a
// closed loop (next request when the last is answered); a request counts
// when it succeeded inside its window. Throughput columns are the median
// over the rounds; the ratio columns are the median of the per-round
// ratios, with their range in brackets; the latencies are pgrest's over
// all rounds, measured at the client, and a second table shows every
// variant's.
//
// # CPU time per request
//
// Each window is also timed in CPU: this process's (getrusage, all
// threads) from the window's start to the end of a garbage collection run
// after it, so each variant's garbage is collected on its own account,
// plus the load generator's measured the same way in its process when the
// load came from there, so the column covers the same work either way;
// and
// PostgreSQL's, the sum over the postmaster and all its child processes
// (the backends of every pool, and the background processes, the WAL
// writer among them) of /proc/<pid>/schedstat's run time, read just
// outside that interval, process by process (one that ended meanwhile
// counts nothing, one that started counts all its time). Over all rounds, divided by the requests served
// in the windows (their tails included), that gives microseconds per
// request on each side. The server's CPU is only read when the bench
// started it: with PGREST_TEST_DSN the column is left out, and the bench
// says why.
//
//   - process pgrest-caddy+raw is what pgrest's Go side costs per request
//     beyond Caddy's routing and a pipelined pgx client, with the HTTP
//     client's share in both.
//   - The Go side's goal (items_eq: < 15 µs) is judged on the server's
//     process alone, Caddy with pgrest and the baselines, the load
//     generator's CPU left out (it is not pgrest's), against the same
//     process's CPU per request when Caddy and the pgx client serve
//     caddy+raw at pgrest's pace. caddy+raw@pgrest can still fall a little
//     short of that pace (caddy+raw's headroom over pgrest is small), so
//     its CPU per request is read at pgrest's throughput on the line
//     through its paced and unpaced measurements (server_cpu.go). A
//     second table shows it, with the load generator's CPU per request
//     beside it, and the unpaced difference.
//   - PostgreSQL pgrest/raw@pgrest is what pgrest's transaction costs
//     the server over the same SQL sent by the pgx loop at the same pace
//     (goal: <= 1.2). The server's cost per request grows when requests
//     come more slowly: a backend sleeps between them and is woken for
//     each. The unpaced raw loop runs several times faster than pgrest,
//     so pgrest/raw, shown too, mixes that in; pgrest/caddy+raw, at a
//     pace close to pgrest's, is shown beside them.
//
// # Memory
//
// With -rss N (default 64), the bench starts itself again as Caddy (as
// tests/nodes does; -caddy runs another binary, such as bin/caddy of
// make build) in a process of its own, loads into it the Caddyfile of the
// in-process pgrest, sends it 2 s of items_eq then 2 s of items_page at N
// connections, every answer checked, and reports its VmRSS before and
// after the load and its peak VmHWM (goal: < 80 MB). db_pool is -pool, as
// in the tables.
//
// # Clients hanging up
//
// With -disconnect D (default 2s), clients hang up mid-request for D
// while bystanders are served, and the bench checks that this costs
// nothing: pgrest's pool keeps every connection (none closed, none
// left busy; the ones opened are shown), every bystander gets the right
// answer, and
// p50/p99 of items_eq at 32 connections are shown before and after,
// beside the raw baseline's measured in turns with them (see
// disconnect.go). A bystander's failure, or a pool connection closed or
// stuck, makes the run exit non-zero.
//
// # Schema cache load
//
// With -schema-load (the default), the bench builds in a database of its
// own the large schema of tests/schemacache's large-schema test (1,000
// tables, 1,998 foreign keys, 200 views) and times schemacache.Load on it as
// the authenticator: the first load, then the median and best of five
// more (goal: < 100 ms), with the CPU time per load of this process and of
// PostgreSQL, which a busy machine inflates less than the wall-clock time.
//
// # How to read the ratios
//
// pgrest/caddy+raw is the share of the ceiling pgrest reaches: 1.0 would
// mean pgrest's own work costs nothing beyond routing a request through
// Caddy to a pipelined transaction (goal for items_eq: >= 0.9).
// pgrest/raw is the share of the hand-written loop without HTTP: 1.0 would
// mean HTTP, Caddy and pgrest cost nothing. The load generator, Caddy,
// pgrest, the baselines and PostgreSQL all share this machine's cores, so
// the HTTP client's own work counts against pgrest and caddy+raw alike.
//
// # Latency
//
// Every variant's p50 and p99 are shown, measured at the client. In a
// closed loop the p50 follows the throughput (32 clients at X requests a
// second wait 32/X on average), so compare the tails within one run:
// pgrest's p99 beside caddy+raw's shows what pgrest adds; raw's, what the
// machine does to a tight loop without HTTP. The garbage collection table
// counts the collections in this process during each variant's windows
// (a p99 over the windows with a collection against the rest would not
// tell: a window the machine stalled serves fewer requests, allocates
// less and so has none). -diag-pool and -diag-gogc add pgrest at other db_pool sizes,
// and with this process's GOGC changed during its windows (diag.go): a
// diagnosis only, the default measures pgrest as a user runs it.
// At concurrency 1 the gap is the latency HTTP, Caddy and pgrest add to
// each request; once the cores are saturated it is the CPU they spend per
// request (HTTP on both ends, routing, the token, the settings JSON).
// -cpuprofile shows where that goes. pgrest/naive above 1 means pgrest,
// HTTP included, beats a service that takes one round trip per
// statement: what pipelining buys. The last lines set the figures
// against the goals. Compare ratios across commits and machines, not
// absolute req/s.
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
	// rssConc is the concurrency of the memory measurement (0: none).
	rssConc int
	// caddyBinary, when set, is the Caddy that the memory measurement
	// runs instead of this program.
	caddyBinary string
	// disconnect is the length of the disconnect phase (0: none).
	disconnect time.Duration
	// schemaLoad measures the schema cache's load time.
	schemaLoad bool
	// only names the workloads to measure; empty measures them all.
	only []string
	// pace are the multiples of pgrest's throughput at which paced
	// variants of the raw loop run (pace.go).
	pace []float64
	// client is where the HTTP variants' load comes from: "own" (a
	// process of its own), "in" (this process) or "both" (client.go).
	client string
	// rateLimit adds the rate limit variants (ratelimit.go), costGuard
	// the cost guard's (costguard.go).
	rateLimit bool
	costGuard bool
	// diagPool and diagGOGC add diagnostic variants (diag.go).
	diagPool []int
	diagGOGC int
	// diagCaddyRaw are the flags of caddy+raw's diagnostic variants
	// (caddyraw_diag.go).
	diagCaddyRaw []string
	// diagCeilingPace adds the ceiling's halves paced at pgrest's
	// throughput (route@pgrest, pipeline@pgrest).
	diagCeilingPace bool
	// diagFeatures adds pgrest with each feature on (features.go).
	diagFeatures bool
	// cpuProfile is where to write a CPU profile of the whole process
	// (pgrest, Caddy, the load generator and the baselines).
	cpuProfile string
	// sizes are the row counts of the big reads' series (sizes.go).
	sizes []int
}

func main() {
	if os.Getenv(runAsCaddy) == "1" {
		runCaddy()
		return
	}
	if os.Getenv(runAsClient) == "1" {
		runClient()
		return
	}
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
	conc := fs.String("c", "8,32", "concurrencies, comma-separated")
	fs.DurationVar(&opt.dur, "d", 5*time.Second, "measured time per variant at each workload and concurrency, over -reps rounds")
	fs.DurationVar(&opt.slice, "slice", 250*time.Millisecond, "length of the windows in which the variants take turns")
	fs.DurationVar(&opt.warmup, "warmup", 500*time.Millisecond, "warm-up per variant before each workload and concurrency")
	fs.IntVar(&opt.reps, "reps", 3, "rounds per measurement; the median is reported")
	fs.IntVar(&opt.pool, "pool", 10, "connections in each pool (pgrest's db_pool and the baselines')")
	fs.IntVar(&opt.rows, "rows", 10000, "rows in api.items")
	fs.IntVar(&opt.rssConc, "rss", 64, "concurrency of the memory measurement of Caddy+pgrest in a process of its own; 0 skips it")
	fs.StringVar(&opt.caddyBinary, "caddy", "", "a Caddy binary with pgrest (`path`, e.g. bin/caddy of make build) for the memory measurement; default: this program run as Caddy")
	fs.DurationVar(&opt.disconnect, "disconnect", 2*time.Second, "length of the phase of clients hanging up mid-request; 0 skips it")
	fs.BoolVar(&opt.schemaLoad, "schema-load", true, "measure the schema cache's load time on 1,000 tables")
	only := fs.String("w", "", "workloads to measure, comma-separated (default: all)")
	pace := fs.String("pace", "1", "paced raw variants: multiples of pgrest's throughput in the cell, comma-separated (1 is raw@pgrest; empty: none)")
	fs.StringVar(&opt.client, "client", "own", "where the HTTP load generator runs: own (a process of its own, as a real client), in (this process, with Caddy and pgrest) or both, side by side")
	fs.BoolVar(&opt.rateLimit, "ratelimit", true, "pgrest with a rate limit too, counted in memory and in Redis (variants "+limitMemoryName+", "+limitRedisName+"; needs redis-server)")
	fs.BoolVar(&opt.costGuard, "costguard", true, "pgrest with a db_max_cost no statement reaches too (variant "+guardName+")")
	diagPool := fs.String("diag-pool", "", "diagnosis: pgrest at these db_pool sizes too, comma-separated (variants pgrest:poolN)")
	diagCaddyRaw := fs.String("diag-caddy-raw", "", "diagnosis: caddy+raw changed in these ways too, comma-separated: pool (one connection per in-flight request), bg (context.Background), or both joined with + (variants caddy+raw:FLAGS)")
	fs.BoolVar(&opt.diagCeilingPace, "diag-ceiling-pace", false, "diagnosis: H and D paced at pgrest's throughput too (variants route@pgrest, pipeline@pgrest), whose CPU per request shows whether the ceiling's costs add up at the same pace as caddy+raw@pgrest's")
	fs.BoolVar(&opt.diagFeatures, "diag-features", false, "diagnosis: pgrest with each feature on too (variants pgrest:log, :timing, :cors, :tz, :rolesettings; features.go), set against pgrest without it")
	fs.IntVar(&opt.diagGOGC, "diag-gogc", 0, "diagnosis: pgrest with this process's GOGC at this percentage during its windows too (variant pgrest:gogcN)")
	fs.StringVar(&opt.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured load to `file` (go tool pprof)")
	sizes := fs.String("sizes", "10000,100000,1000000", "row counts of the big reads' series, comma-separated (empty: none)")
	if err := fs.Parse(args); err != nil {
		return opt, err
	}
	var err error
	if opt.sizes, err = parseSizes(*sizes); err != nil {
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
	if *only != "" {
		opt.only = strings.Split(*only, ",")
	}
	if *diagPool != "" {
		for _, s := range strings.Split(*diagPool, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 {
				return opt, fmt.Errorf("-diag-pool: %q is not a pool size", s)
			}
			opt.diagPool = append(opt.diagPool, n)
		}
	}
	if *diagCaddyRaw != "" {
		for _, s := range strings.Split(*diagCaddyRaw, ",") {
			s = strings.TrimSpace(s)
			if _, err := parseCaddyRawDiag(s); err != nil || s == "" {
				return opt, fmt.Errorf("-diag-caddy-raw: %q: flags are pool and bg, joined with +", s)
			}
			opt.diagCaddyRaw = append(opt.diagCaddyRaw, s)
		}
	}
	if strings.TrimSpace(*pace) != "" {
		for _, s := range strings.Split(*pace, ",") {
			f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || f <= 0 || f > 100 {
				return opt, fmt.Errorf("-pace: %q is not a multiple of pgrest's throughput", s)
			}
			if !slices.Contains(opt.pace, f) {
				opt.pace = append(opt.pace, f)
			}
		}
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
	case opt.rssConc < 0:
		return opt, errors.New("-rss: cannot be negative")
	case opt.disconnect < 0:
		return opt, errors.New("-disconnect: cannot be negative")
	case !slices.Contains([]string{"own", "in", "both"}, opt.client):
		return opt, errors.New("-client: own, in or both")
	}
	return opt, nil
}

// run sets everything up, measures every workload at every concurrency,
// prints the tables, then measures the memory of Caddy+pgrest and what
// clients hanging up cost. It returns an error when anything failed,
// including a single request.
func run(ctx context.Context, opt options) error {
	began := time.Now()
	defer func() { fmt.Printf("\nThe run took %s.\n", time.Since(began).Round(time.Second)) }()
	env, err := setUp(ctx, opt)
	if env != nil {
		defer env.close()
	}
	if err != nil {
		return err
	}

	variants := []*variant{
		{name: "pgrest", newOp: env.httpOp, keepLatency: true},
		{name: "caddy+raw", newOp: env.caddyRawOp, keepLatency: true},
		{name: "raw", newOp: env.rawOp, keepLatency: true},
		{name: "naive", newOp: env.naiveOp, keepLatency: true},
		{name: routeVariant, newOp: env.routeOp, keepLatency: true},
		{name: pipelineVariant, newOp: rawOpOn(env.ceilingPool), keepLatency: true},
		{name: bareVariant, newOp: bareOpOn(env.ceilingPool), keepLatency: true},
	}
	for _, f := range opt.pace {
		variants = append(variants, &variant{name: pacedName(f), newOp: env.rawOp, keepLatency: true, pace: f})
	}
	// caddy+raw at pgrest's pace: the Go side's goal sets pgrest against
	// Caddy's routing and the pgx client doing the same at the same pace,
	// as PostgreSQL's does with raw@pgrest (pace.go).
	crPaced := &variant{name: caddyRawPaced, newOp: env.caddyRawOp, keepLatency: true, pace: 1, target: "caddy+raw"}
	variants = append(variants, crPaced)
	httpVariants := append(slices.Clone(variants[:2]), variants[4], crPaced)
	if opt.rateLimit {
		for _, name := range []string{limitMemoryName, limitRedisName} {
			v := &variant{name: name, newOp: env.opAt(env.diagURLs[name]), keepLatency: true}
			variants = append(variants, v)
			httpVariants = append(httpVariants, v)
		}
	}
	if opt.costGuard {
		v := &variant{name: guardName, newOp: env.opAt(env.diagURLs[guardName]), keepLatency: true}
		variants = append(variants, v)
		httpVariants = append(httpVariants, v)
	}
	if opt.diagFeatures {
		for _, f := range features {
			name := featureName(f)
			v := &variant{name: name, newOp: env.opWith(env.diagURLs[name], env.diagHeaders[name]), keepLatency: true}
			variants = append(variants, v)
			httpVariants = append(httpVariants, v)
		}
	}
	for _, n := range opt.diagPool {
		name := diagPoolName(n)
		v := &variant{name: name, newOp: env.opAt(env.diagURLs[name]), keepLatency: true}
		variants = append(variants, v)
		httpVariants = append(httpVariants, v)
	}
	if opt.diagGOGC != 0 {
		v := &variant{name: diagGOGCName(opt.diagGOGC), newOp: env.httpOp, keepLatency: true, target: "pgrest", gcPercent: opt.diagGOGC}
		cr := &variant{name: "caddy+raw:gogc" + strconv.Itoa(opt.diagGOGC), newOp: env.caddyRawOp, keepLatency: true,
			target: "caddy+raw", gcPercent: opt.diagGOGC}
		variants = append(variants, v, cr)
		httpVariants = append(httpVariants, v, cr)
	}
	if opt.diagCeilingPace {
		route := &variant{name: routeVariant + "@pgrest", newOp: env.routeOp, keepLatency: true, pace: 1, target: routeVariant}
		variants = append(variants, route,
			&variant{name: pipelineVariant + "@pgrest", newOp: rawOpOn(env.ceilingPool), keepLatency: true, pace: 1})
		httpVariants = append(httpVariants, route)
	}
	for _, flags := range opt.diagCaddyRaw {
		name := caddyRawDiagName(flags)
		v := &variant{name: name, newOp: env.opAt(env.caddyRawDiagURLs[name]), keepLatency: true}
		variants = append(variants, v)
		httpVariants = append(httpVariants, v)
	}
	if opt.client != "in" {
		maxConc := slices.Max(opt.conc)
		targets := map[string]string{"pgrest": env.baseURL, "caddy+raw": env.caddyRawURL}
		for name, url := range env.diagURLs {
			targets[name] = url
		}
		for name, url := range env.caddyRawDiagURLs {
			targets[name] = url
		}
		for name, url := range env.routeURLs {
			targets[routeTarget(name)] = url
		}
		if env.loadgen, err = startClient(env, targets, maxConc); err != nil {
			return fmt.Errorf("starting the load generator: %w", err)
		}
		for _, v := range httpVariants {
			v.remote = env.loadgen
		}
		if opt.client == "both" {
			variants = append(variants,
				&variant{name: "pgrest:in", newOp: env.httpOp, keepLatency: true},
				&variant{name: "caddy+raw:in", newOp: env.caddyRawOp, keepLatency: true})
		}
	}
	measured := len(env.workloads)
	if len(opt.only) > 0 {
		measured = len(opt.only)
	}
	cells := measured * len(opt.conc)
	estimate := time.Duration(cells*len(variants)) * (opt.dur + opt.warmup)
	if opt.rssConc > 0 {
		estimate += rssEstimate
	}
	if opt.disconnect > 0 {
		estimate += opt.disconnect + 4*disconnectLoad
	}
	if opt.schemaLoad {
		estimate += 15 * time.Second // mostly building the schema
	}
	fmt.Printf("pgrest benchmark: pgrest over HTTP vs hand-written pgx, side by side\n")
	fmt.Printf("go %s  GOMAXPROCS %d  NumCPU %d  %s/%s\n", runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	fmt.Printf("PostgreSQL %s\n", env.pgVersion)
	fmt.Printf("pool %d per variant, %d rows; per variant and cell: warm-up %s, then %s in %d rounds of ~%s windows taking turns; about %s of load\n\n",
		opt.pool, opt.rows, opt.warmup, opt.dur, opt.reps, opt.slice, estimate.Round(time.Second))

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
	if opt.client == "in" {
		fmt.Printf("The HTTP client runs in this process, beside Caddy and pgrest: its garbage adds to the collections they live through.\n\n")
	} else {
		fmt.Printf("The HTTP client runs in a process of its own, as a real client does: this process holds Caddy, pgrest and the idle baselines.\n\n")
	}
	printHeader(variants)
	var rows []*cell
	for _, wl := range env.workloads {
		if len(opt.only) > 0 && !slices.Contains(opt.only, wl.name) {
			continue
		}
		for _, c := range opt.conc {
			row, err := measureCell(ctx, opt, wl, c, variants, env.db)
			if err != nil {
				return err
			}
			printRow(row)
			rows = append(rows, row)
			var failed []string
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
	fmt.Println("pgrest..naive: req/s, median over the rounds. ratios: median of the per-round ratios [min-max].")
	fmt.Println("p50/p99: pgrest's latency over all its rounds, at the client. No request failed.")
	fmt.Println()
	printCeiling(variants, rows, env.dbWhyNot)
	fmt.Println()
	printLatency(variants, rows)
	fmt.Println()
	printRateLimits(variants, rows)
	fmt.Println()
	printCostGuard(variants, rows)
	fmt.Println()
	printFeatures(variants, rows, env.dbWhyNot)
	fmt.Println()
	printCPU(variants, rows, env.dbWhyNot, opt.client)
	fmt.Println()
	printServerCPU(variants, rows, opt.client)
	fmt.Println()
	printGC(variants, rows, opt.client)

	var mem *rssResult
	if opt.rssConc > 0 {
		if mem, err = measureRSS(ctx, env, opt); err != nil {
			return fmt.Errorf("memory of Caddy+pgrest: %w", err)
		}
		fmt.Println()
		mem.print()
	}
	var gone *disconnectResult
	if opt.disconnect > 0 {
		if gone, err = measureDisconnects(ctx, env, opt); err != nil {
			return fmt.Errorf("disconnects: %w", err)
		}
		fmt.Println()
		gone.print()
	}
	var load *schemaLoadResult
	if opt.schemaLoad {
		if load, err = measureSchemaLoad(ctx, env); err != nil {
			return fmt.Errorf("schema cache load: %w", err)
		}
		fmt.Println()
		load.print()
	}
	if err := measureSizes(ctx, env, opt); err != nil {
		return fmt.Errorf("big reads: %w", err)
	}
	fmt.Println()
	printGoals(variants, rows, mem, load)
	if gone != nil {
		return gone.failure()
	}
	return nil
}

// cell is one workload at one concurrency: the medians of every variant,
// indexed as the variants are (pgrest first).
type cell struct {
	workload string
	conc     int
	rate     []float64
	// vs[i] is pgrest's throughput over variant i's (vs[0] unused).
	vs []ratio
	// p50 and p99 are pgrest's latencies; p50s and p99s every variant's.
	p50, p99   time.Duration
	p50s, p99s []time.Duration
	errs       []int64
	firstErr   []error
	// serverCPU, clientCPU and dbCPU are the CPU time per request, over
	// all rounds, of this process (Caddy, pgrest, the baselines), of the
	// load generator's process and of the database server.
	serverCPU, clientCPU, dbCPU []time.Duration
	// gc is the garbage collection in this process during each variant's
	// windows, and served the requests they served.
	gc     []gcStats
	served []int64
	// rounds are every variant's throughput in each round.
	rounds [][]float64
	// other is the share of the machine's cores that other processes
	// used during the cell's windows (otherLoad), NaN when unknown.
	other float64
}

// goSideCPU is variant i's CPU time per request in this process and the
// load generator's together: the whole Go side, client included.
func (r *cell) goSideCPU(i int) time.Duration { return r.serverCPU[i] + r.clientCPU[i] }

type ratio struct{ median, min, max float64 }

// measureCell warms each variant up, then runs opt.reps rounds. In a
// round each variant gets opt.dur/opt.reps of load, cut into windows of
// about opt.slice that take turns, the order rotating, so that noise on the
// machine lands on all variants alike.
func measureCell(ctx context.Context, opt options, wl *workload, conc int, variants []*variant, db *serverCPU) (*cell, error) {
	n := len(variants)
	row := &cell{workload: wl.name, conc: conc, rate: make([]float64, n), vs: make([]ratio, n),
		errs: make([]int64, n), firstErr: make([]error, n), serverCPU: make([]time.Duration, n), clientCPU: make([]time.Duration, n), dbCPU: make([]time.Duration, n),
		p50s: make([]time.Duration, n), p99s: make([]time.Duration, n), gc: make([]gcStats, n), served: make([]int64, n)}
	// pgrestPace follows pgrest's recent throughput, which the paced
	// variants match.
	var pgrestPace paceTracker
	paceOf := func(i int) float64 { return variants[i].pace * pgrestPace.rate() }
	// owed carries what a paced variant fell short of its pace into its
	// next windows (paceDebt).
	owed := make([]paceDebt, n)
	ops := make([][]op, n)
	for i, v := range variants {
		if v.remote != nil {
			continue
		}
		ops[i] = make([]op, conc)
		for w := range ops[i] {
			ops[i][w] = v.newOp(wl)
		}
	}
	// load runs one window of variant i, in the load generator's process
	// or in this one.
	load := func(i int, dur time.Duration, keepLatency bool, rate float64) *sample {
		v := variants[i]
		return withGCPercent(v.gcPercent, func() *sample {
			if v.remote != nil {
				target := v.target
				if target == "" {
					target = v.name
				}
				return v.remote.window(target, wl, conc, dur, keepLatency, rate)
			}
			return measurePaced(ctx, dur, ops[i], keepLatency, rate)
		})
	}
	note := func(i int, s *sample) {
		row.errs[i] += s.errs
		if row.firstErr[i] == nil {
			row.firstErr[i] = s.firstErr
		}
	}
	if opt.warmup > 0 {
		for i := range variants {
			s := load(i, opt.warmup, false, paceOf(i))
			note(i, s)
			if i == 0 {
				pgrestPace.addWarmUp(s)
			}
		}
	}
	// The warm-ups' garbage is collected now, not on the first window's
	// time.
	runtime.GC()
	perRound := opt.dur / time.Duration(opt.reps)
	windows := max(1, int((perRound+opt.slice/2)/opt.slice))
	window := perRound / time.Duration(windows)
	rates := make([][]float64, n)
	total := make([]sample, n)
	for rep := range opt.reps {
		round := make([]sample, n)
		for w := range windows {
			for k := range variants {
				i := (rep + w + k) % n
				// Each window ends with a garbage collection of its own
				// garbage (measureCPU), so the next starts clean.
				pace := paceOf(i)
				rate := owed[i].rate(pace, window)
				s := measureCPU(db, func() *sample { return load(i, window, variants[i].keepLatency, rate) })
				owed[i].add(pace, s)
				round[i].add(s)
				if i == 0 {
					pgrestPace.add(s)
				}
				if err := ctx.Err(); err != nil {
					return nil, fmt.Errorf("interrupted: %w", err)
				}
			}
		}
		for i := range variants {
			note(i, &round[i])
			rates[i] = append(rates[i], round[i].rate())
			total[i].add(&round[i])
		}
	}
	row.rounds = rates
	var all sample
	for i := range total {
		all.add(&total[i])
	}
	row.other = otherLoad(&all)
	for i := range variants {
		row.rate[i] = median(rates[i])
		row.serverCPU[i], row.clientCPU[i], row.dbCPU[i] = total[i].cpuPerRequest()
		if i > 0 {
			row.vs[i] = ratios(rates[0], rates[i])
		}
		row.gc[i], row.served[i] = total[i].gc, total[i].served
		row.p50s[i] = percentile(total[i].latencies, 50)
		row.p99s[i] = percentile(total[i].latencies, 99)
	}
	row.p50, row.p99 = row.p50s[0], row.p99s[0]
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

// printHeader heads the throughput table: the workload and the
// concurrency, each variant's req/s, pgrest's ratio to each other
// variant, pgrest's latency.
func printHeader(variants []*variant) {
	cols := []string{fmt.Sprintf("%-11s %4s", "workload", "conc")}
	for _, v := range variants {
		cols = append(cols, fmt.Sprintf("%10s", v.name))
	}
	for _, v := range variants[1:] {
		cols = append(cols, fmt.Sprintf("%-17s", "pgrest/"+v.name))
	}
	cols = append(cols, fmt.Sprintf("%8s %8s", "p50", "p99"))
	fmt.Println(strings.Join(cols, " "))
}

func printRow(r *cell) {
	cols := []string{fmt.Sprintf("%-11s %4d", r.workload, r.conc)}
	for _, rate := range r.rate {
		cols = append(cols, fmt.Sprintf("%10.0f", rate))
	}
	for _, v := range r.vs[1:] {
		cols = append(cols, fmt.Sprintf("%-17s", v.String()))
	}
	cols = append(cols, fmt.Sprintf("%8s %8s", ms(r.p50), ms(r.p99)))
	fmt.Println(strings.Join(cols, " "))
}

func (r ratio) String() string {
	return fmt.Sprintf("%.2f [%.2f-%.2f]", r.median, r.min, r.max)
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}
