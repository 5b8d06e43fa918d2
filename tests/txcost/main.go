// Command txcost measures what shapes of pgrest's read transaction cost
// PostgreSQL: the backend's CPU time per transaction, for the shape pgrest
// sends now, the ones it sent before, and their parts; and this
// process's CPU time per transaction (the pgx client's side: writing the
// messages, reading the results).
//
//	go run ./tests/txcost            # 2000 transactions of each shape
//	go run ./tests/txcost -n 5000 -only now,before
//
// It starts a throwaway PostgreSQL (tests/pgtest; PGREST_TEST_DSN points it
// at a running server on this machine instead), opens one connection and
// runs every shape on it in turn, in a random order each round, reading the
// backend's CPU time from /proc/<pid>/schedstat before and after each
// transaction. One backend and interleaved shapes are the point: on a
// shared machine a backend's CPU per transaction depends on what else runs
// (a backend serving a busy, cache-friendly loop costs less per request
// than one woken now and then between other work), so two shapes compare
// only on the same backend at the same time. The medians are what to
// read; compare shapes within one run, not runs.
//
// The statements are pgrest's for GET /items?id=eq.42 with a token for
// webuser (settings arguments as tests/bench sends them), each shape with
// statements of its own so that no two share a plan. It must run on the
// server's machine, as a user that may read the backend's /proc entries.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgrest/caddy-pgrest/tests/executorsql"
	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// settingsSQL and beginReadOnly are the executor's (read from its source:
// executorsql): settingsSQL the settings statement of a request without
// app settings; settingsJSONSQL the one pgrest sent before, which read app
// settings from a JSON object even when there were none.
var (
	executorSQL     = executorsql.MustLoad()
	settingsSQL     = executorSQL.Settings
	settingsJSONSQL = settingsSQL + `, (select count(set_config(s.key, s.value, true)) from json_each_text($8::json) s)`
	settingsTwoSQL  = settingsSQL + `, set_config($8, $9, true), set_config($10, $11, true)`
	beginReadOnly   = executorSQL.BeginReadOnly
)

const (
	mainSQL = `with pgrst_source as (select "items".* from "api"."items" as "items" where "items"."id" = $1) ` +
		`select null::bigint as total_result_set, pg_catalog.count(_pgrst_t) as page_total, ` +
		`coalesce(pg_catalog.json_agg(_pgrst_t), '[]')::text as body, ` +
		`nullif(pg_catalog.current_setting('response.headers', true), '') as response_headers, ` +
		`nullif(pg_catalog.current_setting('response.status', true), '') as response_status from pgrst_source _pgrst_t`
)

var fixture = fixtures.Roles(fixtures.AuthenticatorPassword) + `
create schema api;
grant usage on schema api to webuser;
create table api.items (id int primary key, name text not null, price numeric(10,2) not null, created_at timestamptz not null);
insert into api.items
select i, 'item ' || i, round((i % 997) * 1.37 + 0.99, 2), timestamptz '2024-01-01 00:00:00+00' + i * interval '17 minutes'
from generate_series(1, 10000) i;
analyze api.items;
grant select on api.items to webuser;
`

var fixed = [][]byte{[]byte("webuser"), []byte(`{"exp":1795748249,"role":"webuser"}`), []byte("GET"), []byte("/items"),
	[]byte(`{"authorization":"Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE3OTU3NDgyNDksInJvbGUiOiJ3ZWJ1c2VyIn0.` +
		`QC5UxwJnUrgk3-mJoFMKN0qazVRUr8tkcOjTBEl3zJk","user-agent":"pgrest-bench","accept":"application/json","host":"127.0.0.1:40497"}`),
	[]byte("{}"), []byte(`"api", "public"`)}

// step is one statement of a shape: named (prepared once) or unnamed
// (parsed every time).
type step struct {
	sql     string
	args    [][]byte
	unnamed bool
	name    string                       // set by shapes
	sd      *pgconn.StatementDescription // set when prepared
}

// shape is a transaction. Its named statements are bound and executed
// with the descriptions kept from their Parse, as pgrest sends them now,
// unless described: then each portal is described too (Bind, Describe,
// Execute), as pgrest sent them before and the bench's raw baseline
// still does.
type shape struct {
	name      string
	steps     []step
	described bool
}

func with(args ...[]byte) [][]byte { return append(slices.Clone(fixed), args...) }

var (
	beginUnnamed  = step{sql: beginReadOnly, unnamed: true}
	commitUnnamed = step{sql: "COMMIT", unnamed: true}
	begin         = step{sql: beginReadOnly}
	commit        = step{sql: "COMMIT"}
	settings      = step{sql: settingsSQL, args: fixed}
	settingsJSON  = step{sql: settingsJSONSQL, args: with([]byte("{}"))}
	main_         = step{sql: mainSQL, args: [][]byte{[]byte("42")}}
)

func shapes() []shape {
	all := []shape{
		{"now", []step{begin, settings, main_, commit}, false},
		{"now_described", []step{begin, settings, main_, commit}, true},
		{"before", []step{beginUnnamed, settingsJSON, main_, commitUnnamed}, true},
		{"before_named_begin_commit", []step{begin, settingsJSON, main_, commit}, true},
		{"begin_commit", []step{begin, commit}, false},
		{"begin_commit_described", []step{begin, commit}, true},
		{"begin_commit_unnamed", []step{beginUnnamed, commitUnnamed}, true},
		{"settings", []step{begin, settings, commit}, false},
		{"settings_json_empty", []step{begin, settingsJSON, commit}, true},
		{"two_app_settings", []step{begin, {sql: settingsTwoSQL, args: with([]byte("app.a"), []byte("alpha"), []byte("app.b"), []byte("beta"))}, commit}, true},
		{"two_app_settings_json", []step{begin, {sql: settingsJSONSQL, args: with([]byte(`{"app.a":"alpha","app.b":"beta"}`))}, commit}, true},
	}
	for i := range all {
		for j := range all[i].steps {
			if !all[i].steps[j].unnamed {
				all[i].steps[j].name = fmt.Sprintf("txcost_%d_%d", i, j)
			}
		}
	}
	return all
}

func main() {
	n := flag.Int("n", 2000, "transactions of each shape")
	only := flag.String("only", "", "comma-separated shapes to run (default all)")
	flag.Parse()
	if err := run(*n, *only); err != nil {
		fmt.Fprintln(os.Stderr, "txcost:", err)
		os.Exit(1)
	}
}

func run(n int, only string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	db, err := pgresttest.SetUp(ctx, "pgrest_txcost", pgresttest.SQL("the txcost fixture", fixture))
	if err != nil {
		return err
	}
	defer db.Cluster.Stop()
	// As the authenticator, as pgrest connects: the role switch checks
	// its membership.
	pg, err := pgconn.Connect(ctx, db.DSNFor("authenticator", fixtures.AuthenticatorPassword))
	if err != nil {
		return err
	}
	defer pg.Close(context.Background())

	var use []shape
	for _, sh := range shapes() {
		if only == "" || slices.Contains(strings.Split(only, ","), sh.name) {
			use = append(use, sh)
		}
	}
	if len(use) == 0 {
		return fmt.Errorf("-only %q names no shape", only)
	}
	// The main statement reads api.items as webuser, as pgrest prepares it.
	if _, err := pg.Exec(ctx, "begin; set local role webuser").ReadAll(); err != nil {
		return err
	}
	for _, sh := range use {
		for i, st := range sh.steps {
			if st.name != "" {
				sd, err := pg.Prepare(ctx, st.name, st.sql, nil)
				if err != nil {
					return fmt.Errorf("%s: %w", sh.name, err)
				}
				if len(sd.Fields) == 0 {
					// BEGIN and COMMIT: as pgrest's txControlFields,
					// so that pgx sends no Describe for them.
					sd.Fields = []pgconn.FieldDescription{{Name: "?column?"}}
				}
				sh.steps[i].sd = sd
			}
		}
	}
	if _, err := pg.Exec(ctx, "commit").ReadAll(); err != nil {
		return err
	}
	// Warm up past the custom plans of the first executions.
	for range 20 {
		for _, sh := range use {
			if err := transact(ctx, pg, sh); err != nil {
				return fmt.Errorf("%s: %w", sh.name, err)
			}
		}
	}
	pid := pg.PID()
	samples := make([][]time.Duration, len(use))
	client := make([][]time.Duration, len(use))
	for range n {
		// A random order each round: a transaction costs less after
		// one like it (warm caches), so a fixed rotation, where each
		// shape mostly follows the same other, biases the comparison.
		for _, j := range rand.Perm(len(use)) {
			// Let the backend finish what follows its last answer and
			// go to sleep, so that none of it counts for this one.
			time.Sleep(100 * time.Microsecond)
			before, err := cpuTime(pid)
			if err != nil {
				return err
			}
			ownBefore := processCPU()
			if err := transact(ctx, pg, use[j]); err != nil {
				return fmt.Errorf("%s: %w", use[j].name, err)
			}
			ownAfter := processCPU()
			after, err := cpuTime(pid)
			if err != nil {
				return err
			}
			samples[j] = append(samples[j], after-before)
			client[j] = append(client[j], ownAfter-ownBefore)
		}
	}
	fmt.Printf("PostgreSQL backend CPU per transaction, %d of each shape, interleaved on one backend\n", n)
	fmt.Printf("and this process's CPU per transaction (the client), its median and mean (the mean counts garbage collection)\n")
	fmt.Printf("%-26s %9s %9s %9s   %9s %9s\n", "shape", "p25", "median", "p75", "client", "mean")
	for j, sh := range use {
		s := samples[j]
		slices.Sort(s)
		c := client[j]
		var sum time.Duration
		for _, d := range c {
			sum += d
		}
		slices.Sort(c)
		fmt.Printf("%-26s %9s %9s %9s   %9s %9s\n", sh.name, us(s[len(s)/4]), us(s[len(s)/2]), us(s[3*len(s)/4]),
			us(c[len(c)/2]), us(sum/time.Duration(len(c))))
	}
	return nil
}

// transact runs one shape as pgrest does: one pipeline, one Sync.
func transact(ctx context.Context, pg *pgconn.PgConn, sh shape) error {
	p := pg.StartPipeline(ctx)
	for _, st := range sh.steps {
		switch {
		case st.unnamed:
			p.SendQueryParams(st.sql, st.args, nil, nil, nil)
		case sh.described:
			p.SendQueryPrepared(st.name, st.args, nil, nil)
		default:
			p.SendQueryStatement(st.sd, st.args, nil, nil)
		}
	}
	if err := p.Sync(); err != nil {
		_ = p.Close()
		return err
	}
	for range sh.steps {
		res, err := p.GetResults()
		if err != nil {
			_ = p.Close()
			return err
		}
		rr, ok := res.(*pgconn.ResultReader)
		if !ok {
			_ = p.Close()
			return fmt.Errorf("unexpected %T", res)
		}
		if _, err := rr.Close(); err != nil {
			_ = p.Close()
			return err
		}
	}
	if _, err := p.GetResults(); err != nil { // the Sync
		_ = p.Close()
		return err
	}
	return p.Close()
}

// cpuTime is the time the process pid has run on a CPU: the first field
// of /proc/<pid>/schedstat, in nanoseconds.
func cpuTime(pid uint32) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the backend's CPU time (run on the server's machine): %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("/proc/%d/schedstat: empty", pid)
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	return time.Duration(ns), err
}

// processCPU is this process's CPU time, user and system, all threads.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func us(d time.Duration) string { return fmt.Sprintf("%.1fµs", float64(d)/1e3) }
