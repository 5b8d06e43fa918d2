package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
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
//     p99 before; this also fills pgrest's pool.
//  2. The pool's backends (pg_stat_activity, application_name pgrest).
//  3. For -disconnect, clients hang up: some during a call of
//     api.bench_sleep (a half-second statement) after 5-50 ms, some
//     during items_eq after a random 0.1-3 ms (wherever the request is
//     then: waiting for a connection, in its pipeline, writing the
//     answer). Bystanders meanwhile send items_eq on other connections
//     and must all be answered right: a late cancel would cancel one of
//     their statements instead.
//  4. Once every cancelled statement has ended, the pool's backends
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
	sleepers = 16
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
	p50Before, p99Before     time.Duration
	p50After, p99After       time.Duration
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
	fmt.Printf("Clients hanging up mid-request (%s, %d connections): %d hung up during a 0.5 s statement after 5-50 ms, %d during items_eq after 0.1-3 ms (%d more answered first, checked);\n",
		r.phase, disconnectConc, r.sleepHangUps, r.cutHangUps, r.cutAnswered)
	fmt.Printf("  meanwhile %d bystander items_eq requests answered right, %d not\n", r.bystanderOK, r.bystanderErrs)
	fmt.Printf("  pgrest's pool: %d connections before, %d after; %d of them closed, %d opened; %d left running or idle in a transaction\n",
		len(r.before), len(r.after), len(r.closed()), len(r.opened()), r.stuck)
	fmt.Printf("  items_eq at %d connections, %s each: before p50 %s p99 %s; after p50 %s p99 %s (p99 after/before %.2f)\n",
		disconnectConc, disconnectLoad, ms(r.p50Before), ms(r.p99Before), ms(r.p50After), ms(r.p99After),
		ratioOf(r.p99After, r.p99Before))
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
	if res.p50Before, res.p99Before, err = e.latencies(ctx, eq); err != nil {
		return nil, fmt.Errorf("before: %w", err)
	}
	if res.before, _, err = e.poolBackends(ctx); err != nil {
		return nil, err
	}

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
					d := time.Duration(5+rand.IntN(46)) * time.Millisecond
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
	if res.p50After, res.p99After, err = e.latencies(ctx, eq); err != nil {
		return nil, fmt.Errorf("after: %w", err)
	}
	return res, nil
}

// latencies runs wl at disconnectConc connections for disconnectLoad and
// returns pgrest's p50 and p99.
func (e *env) latencies(ctx context.Context, wl *workload) (p50, p99 time.Duration, err error) {
	ops := make([]op, disconnectConc)
	for i := range ops {
		ops[i] = e.httpOp(wl)
	}
	s := measure(ctx, disconnectLoad, ops, true)
	if s.errs > 0 {
		return 0, 0, fmt.Errorf("%d failed requests, first: %v", s.errs, s.firstErr)
	}
	return percentile(s.latencies, 50), percentile(s.latencies, 99), ctx.Err()
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
