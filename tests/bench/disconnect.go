package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// The disconnect phase shows what clients that hang up mid-request cost
// pgrest: nothing, if each cancels its statement and its connection goes
// back to the pool. Before, pgrest reset the whole pool for each one: the
// pool fell apart at the end of every load run and the next run's p99
// jumped while it reconnected.
//
// It runs after the tables, on the in-process pgrest:
//
//  1. items_eq at disconnectConc connections for disconnectLoad: p50 and
//     p99 before; this also fills pgrest's pool. Its windows take turns
//     with the raw baseline's, whose latencies show what the busy machine
//     did meanwhile.
//  2. The pool's backends (pg_stat_activity, application_name pgrest).
//  3. For -disconnect, clients hang up: some during a call of
//     api.bench_sleep (a half-second statement) after 30-150 ms, some
//     during items_eq after a random 0.1-3 ms (wherever the request is
//     then: waiting for a connection, in its pipeline, writing the
//     answer). Bystanders meanwhile send items_eq on other connections
//     and must all be answered right: a late cancel would cancel one of
//     their statements instead.
//  4. The statements cancelled, counted in the server's log when the
//     bench started the server. Once every cancelled statement has
//     ended, the pool's backends
//     again: none of the earlier ones closed, none left running a
//     statement or idle in a transaction.
//  5. items_eq as in 1: p50 and p99 after.
//
// A failed bystander, a closed or stuck pool connection fail the run.

// disconnectSQL is the function the hanging-up calls run.
const disconnectSQL = `
create function api.bench_sleep(seconds float8) returns int
language sql stable
as $f$ select 1 from pg_catalog.pg_sleep(seconds) $f$;
`

const (
	disconnectConc = 32
	disconnectLoad = 2 * time.Second
	// Of the disconnectConc clients of the phase: sleepers hang up during
	// api.bench_sleep, cutters during items_eq, the rest are bystanders.
	// Fewer sleepers than -pool's default of 10 connections, so that most
	// get one at once and hang up while their statement runs rather than
	// while they wait for a connection.
	sleepers = 8
	cutters  = 8
)

type disconnectResult struct {
	phase                    time.Duration
	sleepHangUps, cutHangUps int64
	cutAnswered              int64 // items_eq answered before the client hung up (and checked)
	bystanderOK              int64
	bystanderErrs            int64
	bystanderErr             error
	before, after            []int // the pool's backend pids
	stuck                    int   // backends still active or idle in a transaction
	latBefore, latAfter      *latencyPair
	// cancelled counts the statements the server cancelled at a client's
	// request during the phase, from its log (-1: not ours to read).
	cancelled int
}

func (r *disconnectResult) closed() []int {
	var c []int
	for _, pid := range r.before {
		if !slices.Contains(r.after, pid) {
			c = append(c, pid)
		}
	}
	return c
}

func (r *disconnectResult) opened() []int {
	var o []int
	for _, pid := range r.after {
		if !slices.Contains(r.before, pid) {
			o = append(o, pid)
		}
	}
	return o
}

func (r *disconnectResult) print() {
	fmt.Printf("Clients hanging up mid-request (%s, %d connections): %d hung up during a 0.5 s statement after 30-150 ms, %d during items_eq after 0.1-3 ms (%d more answered first, checked);\n",
		r.phase, disconnectConc, r.sleepHangUps, r.cutHangUps, r.cutAnswered)
	if r.cancelled >= 0 {
		fmt.Printf("  PostgreSQL's log: %d statements cancelled while running, at pgrest's request (the other hang-ups came before their statement started)\n", r.cancelled)
	}
	fmt.Printf("  meanwhile %d bystander items_eq requests answered right, %d not\n", r.bystanderOK, r.bystanderErrs)
	fmt.Printf("  pgrest's pool: %d connections before, %d after; %d of them closed, %d opened; %d left running or idle in a transaction\n",
		len(r.before), len(r.after), len(r.closed()), len(r.opened()), r.stuck)
	fmt.Printf("  items_eq at %d connections, %s each, taking turns with the raw baseline:\n", disconnectConc, disconnectLoad)
	fmt.Printf("    before: %s\n    after:  %s\n", r.latBefore, r.latAfter)
	fmt.Printf("    pgrest's p99 after/before %.2f (raw's %.2f)\n",
		ratioOf(r.latAfter.p99, r.latBefore.p99), ratioOf(r.latAfter.rawP99, r.latBefore.rawP99))
}

// failure is the run's error when a disconnect cost something.
func (r *disconnectResult) failure() error {
	var errs []error
	if r.bystanderErrs > 0 {
		errs = append(errs, fmt.Errorf("%d bystander requests failed during the disconnects, first: %v", r.bystanderErrs, r.bystanderErr))
	}
	if c := r.closed(); len(c) > 0 {
		errs = append(errs, fmt.Errorf("clients hanging up closed %d of pgrest's %d pool connections", len(c), len(r.before)))
	}
	if r.stuck > 0 {
		errs = append(errs, fmt.Errorf("%d of pgrest's connections still run a statement or sit in a transaction after the disconnects", r.stuck))
	}
	if r.cancelled == 0 {
		errs = append(errs, errors.New("no statement was cancelled while it ran: the phase did not test a hang-up mid-statement"))
	}
	if r.sleepHangUps == 0 || r.cutHangUps == 0 {
		errs = append(errs, errors.New("no client hung up: the phase tested nothing"))
	}
	return errors.Join(errs...)
}

func measureDisconnects(ctx context.Context, e *env, opt options) (*disconnectResult, error) {
	var eq *workload
	for _, wl := range e.workloads {
		if wl.name == "items_eq" {
			eq = wl
		}
	}
	res := &disconnectResult{phase: opt.disconnect}
	var err error
	if res.latBefore, err = e.latencies(ctx, eq); err != nil {
		return nil, fmt.Errorf("before: %w", err)
	}
	if res.before, _, err = e.poolBackends(ctx); err != nil {
		return nil, err
	}
	serverLog := e.cluster.LogFile()
	cancelledBefore := countInFile(serverLog, cancelledStatement)

	hangUps := *e
	hangUps.client = &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		MaxIdleConnsPerHost: disconnectConc,
		DisableCompression:  true,
	}}
	defer hangUps.client.CloseIdleConnections()
	sleep := &workload{name: "bench_sleep", method: http.MethodPost, target: "/rpc/bench_sleep",
		reqBody: []byte(`{"seconds": 0.5}`)}
	var sleepHangUps, cutHangUps, cutAnswered, bystanderOK, bystanderErrs atomic.Int64
	var mu sync.Mutex
	var firstErr error
	fail := func(counter *atomic.Int64, err error) {
		counter.Add(1)
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil {
			firstErr = err
		}
	}
	// hangUp sends wl's request and hangs up after d. It says whether
	// the client hung up; an answer that came first is checked.
	hangUp := func(wl *workload, d time.Duration, buf *bytes.Buffer) (bool, error) {
		rctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		status, err := hangUps.send(rctx, wl, wl.target, buf)
		switch {
		case err != nil && rctx.Err() != nil:
			return true, nil
		case err != nil:
			return false, err
		case status != http.StatusOK:
			return false, fmt.Errorf("%s answered %d before the hang-up: %.300s", wl.name, status, buf.Bytes())
		case wl == sleep:
			return false, fmt.Errorf("a 0.5 s call answered within %s", d)
		}
		return false, wl.check(buf.Bytes())
	}
	deadline := time.Now().Add(opt.disconnect)
	var wg sync.WaitGroup
	for i := range disconnectConc {
		wg.Go(func() {
			var buf bytes.Buffer
			bystander := e.httpOp(eq)
			for time.Now().Before(deadline) && ctx.Err() == nil {
				switch {
				case i < sleepers:
					d := time.Duration(30+rand.IntN(121)) * time.Millisecond
					if cut, err := hangUp(sleep, d, &buf); err != nil {
						fail(&bystanderErrs, err)
					} else if cut {
						sleepHangUps.Add(1)
					}
				case i < sleepers+cutters:
					d := time.Duration(100+rand.IntN(2901)) * time.Microsecond
					cut, err := hangUp(eq, d, &buf)
					switch {
					case err != nil:
						fail(&bystanderErrs, err)
					case cut:
						cutHangUps.Add(1)
					default:
						cutAnswered.Add(1)
					}
				default:
					if err := bystander(ctx); err != nil {
						fail(&bystanderErrs, err)
					} else {
						bystanderOK.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.sleepHangUps, res.cutHangUps, res.cutAnswered = sleepHangUps.Load(), cutHangUps.Load(), cutAnswered.Load()
	res.bystanderOK, res.bystanderErrs, res.bystanderErr = bystanderOK.Load(), bystanderErrs.Load(), firstErr

	// A cancelled statement ends at once; an uncancelled one within the
	// half second it sleeps. Past a second, what is still busy is stuck.
	for wait := 0; ; wait++ {
		if res.after, res.stuck, err = e.poolBackends(ctx); err != nil {
			return nil, err
		}
		if res.stuck == 0 || wait == 20 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	res.cancelled = -1
	if serverLog != "" && cancelledBefore >= 0 {
		res.cancelled = countInFile(serverLog, cancelledStatement) - cancelledBefore
	}
	if res.latAfter, err = e.latencies(ctx, eq); err != nil {
		return nil, fmt.Errorf("after: %w", err)
	}
	return res, nil
}

// cancelledStatement is what PostgreSQL logs for a statement cancelled by
// a cancel request.
const cancelledStatement = "canceling statement due to user request"

// countInFile counts the occurrences of s in the file at path; -1 when it
// cannot be read.
func countInFile(path, s string) int {
	if path == "" {
		return -1
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	return bytes.Count(b, []byte(s))
}

// latencies runs wl at disconnectConc connections for disconnectLoad on
// pgrest, in windows taking turns with as many of the raw baseline, and
// returns both's latencies: on a busy machine the raw baseline's show
// what the machine did meanwhile.
func (e *env) latencies(ctx context.Context, wl *workload) (*latencyPair, error) {
	pgrest, raw := make([]op, disconnectConc), make([]op, disconnectConc)
	for i := range pgrest {
		pgrest[i], raw[i] = e.httpOp(wl), e.rawOp(wl)
	}
	const window = 250 * time.Millisecond
	var ps, rs sample
	for range max(1, int(disconnectLoad/window)) {
		ps.add(measure(ctx, window, pgrest, true))
		rs.add(measure(ctx, window, raw, true))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if ps.errs+rs.errs > 0 {
		first := ps.firstErr
		if first == nil {
			first = rs.firstErr
		}
		return nil, fmt.Errorf("%d failed requests, first: %v", ps.errs+rs.errs, first)
	}
	return &latencyPair{
		p50: percentile(ps.latencies, 50), p99: percentile(ps.latencies, 99),
		rawP50: percentile(rs.latencies, 50), rawP99: percentile(rs.latencies, 99),
	}, nil
}

// latencyPair is pgrest's latency and the raw baseline's, measured in
// windows taking turns.
type latencyPair struct {
	p50, p99, rawP50, rawP99 time.Duration
}

func (l *latencyPair) String() string {
	return fmt.Sprintf("pgrest p50 %s p99 %s (raw p50 %s p99 %s)", ms(l.p50), ms(l.p99), ms(l.rawP50), ms(l.rawP99))
}

// poolBackends lists the backends of pgrest's pool, from
// pg_stat_activity (pgrest names its connections; the schema reload
// listener's, whose last statement is its LISTEN, is left out), and
// counts those running a statement or idle in a transaction.
func (e *env) poolBackends(ctx context.Context) (pids []int, busy int, err error) {
	conn, err := pgx.Connect(ctx, e.superDSN)
	if err != nil {
		return nil, 0, err
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, `select pid, state from pg_catalog.pg_stat_activity
		where application_name = 'pgrest' and datname = current_database() and backend_type = 'client backend'
		and query not ilike 'listen %'
		order by pid`)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		var state *string
		if err := rows.Scan(&pid, &state); err != nil {
			return nil, 0, err
		}
		pids = append(pids, pid)
		if state != nil && *state != "idle" {
			busy++
		}
	}
	return pids, busy, rows.Err()
}
