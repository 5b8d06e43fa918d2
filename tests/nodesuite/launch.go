package nodesuite

import (
	"context"
	"fmt"
	"os"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// Main runs a launcher: run gets a context that ends on an interrupt (see
// SignalContext) and the module root, and its result is the exit code.
func Main(log Logger, run func(ctx context.Context, root string) int) {
	os.Exit(func() int {
		ctx, stop := SignalContext()
		defer stop()
		root, err := pgtest.ModuleRoot()
		if err != nil {
			return log.Fail(fmt.Errorf("%w; run from the pgrest module", err))
		}
		return run(ctx, root)
	}())
}

// StartDatabase starts a throwaway PostgreSQL (tests/pgtest) with PostGIS,
// which both suites' fixtures need, and makes the database name afresh in
// it (dropped first when left from an earlier run). It returns the
// database's superuser URL, the cluster (for a suite that restarts it)
// and the function that stops it. opts, when given, start the cluster
// (wal_level = logical for the realtime change feed).
func StartDatabase(ctx context.Context, log Logger, name string, opts ...pgtest.Options) (superDSN string, cluster *pgtest.Cluster, stop func(), err error) {
	if err := pgtest.EnsurePostGIS(); err != nil {
		return "", nil, nil, err
	}
	log.Printf("starting PostgreSQL")
	var o pgtest.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	cluster, err = pgtest.StartWith(o)
	if err != nil {
		return "", nil, nil, err
	}
	stop = func() {
		log.Printf("stopping PostgreSQL")
		cluster.Stop()
	}
	if superDSN, err = cluster.NewDatabase(ctx, name); err != nil {
		stop()
		return "", nil, nil, err
	}
	return superDSN, cluster, stop, nil
}

// Serve serves pgrest with the subdirectives dirs through a real Caddy
// config on a free loopback port, as opts says (its log in opts.LogFile),
// and waits until a GET of readyPath under opts.Mount answers 200. It
// returns pgrest's base URL (the site's URL, then opts.Mount), the site's
// URL and the function that stops Caddy.
func Serve(ctx context.Context, log Logger, dirs map[string]string, opts pgresttest.Options, readyPath string) (baseURL, siteURL string, stop func(), err error) {
	s, warnings, err := pgresttest.Serve(dirs, opts)
	for _, w := range warnings {
		log.Printf("Caddyfile warning: %s", w)
	}
	if err != nil {
		return "", "", nil, err
	}
	stop = func() {
		if err := pgresttest.Stop(); err != nil {
			log.Printf("stopping Caddy: %v", err)
		}
	}
	baseURL = s.URL + opts.Mount
	if err := WaitReady(ctx, baseURL+readyPath); err != nil {
		stop()
		return "", "", nil, err
	}
	log.Printf("pgrest serves %s", baseURL)
	return baseURL, s.URL, stop, nil
}

// Finish ends a run whose suite exited with code: with PGREST_CLIENT_KEEP=1
// pgrest keeps serving baseURL until an interrupt; an interrupted run
// exits 130; a failed one shows the end of the server log at logPath.
func (l Logger) Finish(ctx context.Context, code int, baseURL, logPath string) int {
	if os.Getenv("PGREST_CLIENT_KEEP") == "1" && ctx.Err() == nil {
		l.Printf("PGREST_CLIENT_KEEP=1: serving %s until interrupted", baseURL)
		<-ctx.Done()
	}
	if ctx.Err() != nil && code == 0 {
		return l.Interrupted()
	}
	if code != 0 && ctx.Err() == nil {
		l.PrintTail(logPath, 40)
	}
	return code
}

// FailOrInterrupted is the exit code of a setup step that failed with err:
// 130 when an interrupt ended it, else 1.
func (l Logger) FailOrInterrupted(ctx context.Context, err error) int {
	if ctx.Err() != nil {
		return l.Interrupted()
	}
	return l.Fail(err)
}
