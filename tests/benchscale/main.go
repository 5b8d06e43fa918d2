// Command benchscale measures what pgrest's scale-out paths cost, side by
// side in one run on one machine, as ratios (every server shares this
// machine's cores, so absolute rates say little):
//
//   - replica routing: reads through pgrest with db_replicas (primary +
//     a streaming replica) ÷ reads through pgrest whose db_uri is that
//     replica itself. Both serve every read from the replica; the
//     difference is the routing (the choice of a pool, the health state).
//
//   - PgBouncer: reads through pgrest behind PgBouncer in transaction
//     mode (db_prepared_statements false) ÷ pgrest straight to the same
//     PostgreSQL with db_prepared_statements false (PgBouncer's hop
//     alone), and ÷ pgrest straight with prepared statements (what the
//     whole PgBouncer setup costs).
//
//   - fallback and return: under a read load through the routing pgrest,
//     the replica is stopped (SIGQUIT to its postmaster, what pg_ctl stop
//     -m immediate sends: a crash; then pg_ctl stop -m fast, a shutdown)
//     and started again: how long until reads run on the
//     primary, how many failed (the tests assert none), the slowest read
//     meanwhile, and how long after the restart reads run on the replica
//     again.
//
//   - schema reload and outage recovery, set against their goals: how
//     soon NOTIFY pgrst, 'reload schema' shows a new table (< 1 s), and,
//     with the database down behind a closed TCP gate when pgrest starts
//     (-outage, 8s), how soon each 503 PGRST000 comes (at once: < 1 s)
//     and how soon after the gate opens the first read succeeds (< 2 s).
//     The tests (tests/faults/reload) assert that these happen, not how
//     soon: a wall-clock bound in a test fails for the sake of whatever
//     else shares the machine. A missed goal prints NOT met.
//
//     go run ./tests/benchscale              # about 2 minutes
//     go run ./tests/benchscale -d 2s -c 8
//     make bench                             # tests/bench, then this
//
// It starts a throwaway PostgreSQL (tests/pgtest), its streaming replica
// (pg_basebackup -R) and a PgBouncer in front of it, loads api.items, and
// serves every pgrest variant as a site of one Caddy config in this
// process, loaded from a Caddyfile as a user's would be.
//
// Each comparison runs its two variants in turns of -slice for -d each
// (A, B; B, A; ...) after a warm-up, with -c closed-loop workers, so noise
// on this shared machine lands on both alike. A/B is the ratio of the two
// variants' rates over all their turns; beside it the median of the
// per-pair ratios, with their interquartile range in brackets (the
// machine is shared: a wide range says the run was noisy).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// options are the command line flags.
type options struct {
	conc   int
	dur    time.Duration
	slice  time.Duration
	warmup time.Duration
	pool   int
	rows   int
	// skipFailover leaves out the stop and restart of the replica.
	skipFailover bool
	// skipRecovery leaves out the NOTIFY reload and the outage.
	skipRecovery bool
	// outage is how long the database stays down at pgrest's start.
	outage time.Duration
}

func main() {
	var opt options
	flag.IntVar(&opt.conc, "c", 8, "concurrent workers of each comparison")
	flag.DurationVar(&opt.dur, "d", 4*time.Second, "measured time of each variant of a comparison")
	flag.DurationVar(&opt.slice, "slice", 250*time.Millisecond, "length of one turn of a variant")
	flag.DurationVar(&opt.warmup, "warmup", time.Second, "warm-up of each variant before measuring")
	flag.IntVar(&opt.pool, "pool", 10, "db_pool of every variant")
	flag.IntVar(&opt.rows, "rows", 1000, "rows of api.items")
	flag.BoolVar(&opt.skipFailover, "skip-failover", false, "do not stop and restart the replica")
	flag.BoolVar(&opt.skipRecovery, "skip-recovery", false, "do not time the NOTIFY reload and the recovery from an outage")
	flag.DurationVar(&opt.outage, "outage", 8*time.Second, "how long the database is down when pgrest starts, for the recovery figures")
	flag.Parse()
	if opt.conc < 1 || opt.dur <= 0 || opt.slice <= 0 || opt.pool < 1 || opt.rows < 100 || opt.outage <= 0 {
		fmt.Fprintln(os.Stderr, "benchscale: -c and -pool at least 1, -d, -slice and -outage more than 0, -rows at least 100")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, opt)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchscale:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, opt options) error {
	env, err := setUp(ctx, opt)
	if env != nil {
		defer env.tearDown()
	}
	if err != nil {
		return err
	}
	fmt.Printf("benchscale: %d workers, %s per variant in %s turns, db_pool %d, GET /items?id=eq.N\n\n",
		opt.conc, opt.dur, opt.slice, opt.pool)
	comparisons := []struct {
		name, what string
		a, b       *site
	}{
		{"replica routing", "pgrest with db_replicas ÷ pgrest with db_uri = the replica", env.routed, env.onReplica},
		{"PgBouncer hop", "pgrest via PgBouncer ÷ pgrest direct, both db_prepared_statements false", env.bouncer, env.directUnprepared},
		{"PgBouncer setup", "pgrest via PgBouncer (prepared false) ÷ pgrest direct (prepared true)", env.bouncer, env.direct},
	}
	fmt.Printf("%-16s %9s %9s %7s %24s   %s\n", "comparison", "A req/s", "B req/s", "A/B", "pairs: median [IQR]", "A ÷ B")
	for _, c := range comparisons {
		res, err := compare(ctx, env, opt, c.a, c.b)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		fmt.Printf("%-16s %9.0f %9.0f %7.3f %9.3f [%.3f-%.3f]   %s\n", c.name, res.rateA, res.rateB, res.total,
			res.ratio, res.low, res.high, c.what)
	}
	if !opt.skipFailover {
		if err := measureFailovers(ctx, env, opt); err != nil {
			return err
		}
	}
	if opt.skipRecovery {
		return nil
	}
	n, err := measureNotify(ctx, env)
	if err != nil {
		return fmt.Errorf("NOTIFY reload: %w", err)
	}
	// Last: it replaces the variants' config with its own.
	o, err := measureOutage(ctx, env, opt.outage)
	if err != nil {
		return fmt.Errorf("outage: %w", err)
	}
	printRecovery(n, o, opt.outage)
	return nil
}

// measureFailovers stops and restarts the replica under load, crashed and
// shut down, and prints the figures.
func measureFailovers(ctx context.Context, env *env, opt options) error {
	fmt.Printf("\nreplica stopped and restarted under %d workers reading through pgrest with db_replicas "+
		"(db_replica_check_interval %s):\n", opt.conc, checkInterval)
	fmt.Printf("%-6s %12s %12s %14s %8s %14s %13s %17s\n", "stop", "stop command", "to primary", "last replica",
		"failed", "slowest read", "median read", "back on replica")
	for _, mode := range []string{"crash", "fast"} {
		f, err := failover(ctx, env, opt, mode)
		if err != nil {
			return fmt.Errorf("failover (%s): %w", mode, err)
		}
		fmt.Printf("%-6s %12s %12s %14s %8d %14s %13s %17s\n", mode, ms(f.stopCommand), ms(f.toPrimary), ms(f.lastReplica),
			f.failed, ms(f.slowest), ms(f.median), ms(f.back))
	}
	fmt.Println("\ncrash: SIGQUIT to the replica's postmaster (pg_ctl stop -m immediate without pg_ctl); fast: pg_ctl stop",
		"\n-m fast. Times from the stop command's start: to the first read answered by the primary, to the last",
		"\nread answered by the replica. slowest and median read: of the reads sent between the stop and the",
		"\nrestart. back on replica: from the start command's return to the first read the replica answered.")
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
