package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The size series: what a big read costs pgrest against PostgreSQL alone
// producing the same rows' text, and how much memory it takes. GET
// /size_rows?order=id&limit=N for each N of -sizes, as JSON and as CSV,
// and GET /rpc/size_rows_upto?n=N, the same rows as JSON through a
// set-returning function, one request at a time; then sizeConc requests
// of the largest N at once, for each of the three.
// PostgreSQL alone is pgconn reading the same rows' text (the JSON of
// each row, or its CSV record) from a query, row by row, and throwing it
// away: the least PostgreSQL does to produce that body. pgrest runs in a
// process of its own (as for the memory measurement, rss.go), whose peak
// RSS (VmHWM, reset before each step through /proc/PID/clear_refs) is
// reported per step.

// sizeConc is the concurrency of the last step.
const sizeConc = 4

// sizeRounds is how many times each step runs; the median is reported.
const sizeRounds = 3

// sizeRowsSQL makes api.size_rows: rows of about 100 bytes of JSON.
const sizeRowsSQL = `
create table api.size_rows as
select i as id, 'item ' || i as name, round((i %% 997) * 1.37 + 0.99, 2)::numeric(10,2) as price,
       timestamptz '2024-01-01 00:00:00+00' + i * interval '17 minutes' as created_at,
       case when i %% 3 = 0 then null else 'note ' || i end as note
from generate_series(1, %d) i;
alter table api.size_rows add primary key (id);
grant select on api.size_rows to web_anon, webuser;
analyze api.size_rows;
create function api.size_rows_upto(n int) returns setof api.size_rows language plpgsql stable as $f$
begin
  return query select * from api.size_rows order by id limit n;
end
$f$;
`

// sizeFormat is one representation of the series.
type sizeFormat struct {
	name, accept string
	// rowText is the text of one row of t as pgrest puts it in the body.
	rowText string
	// rpc reads the rows through api.size_rows_upto (PostgreSQL alone
	// calls it too), in the steps of one request only.
	rpc bool
}

const jsonRowText = "pg_catalog.row_to_json(t)::text"

var sizeFormats = []sizeFormat{
	{name: "json", accept: "application/json", rowText: jsonRowText},
	{name: "csv", accept: "text/csv", rowText: "pg_catalog.substring(t::text, 2, pg_catalog.length(t::text) - 2)"},
	{name: "rpc", accept: "application/json", rowText: jsonRowText, rpc: true},
}

// path is the request of n rows in f.
func (f sizeFormat) path(n int) string {
	if f.rpc {
		return "/rpc/size_rows_upto?n=" + strconv.Itoa(n)
	}
	return "/size_rows?order=id&limit=" + strconv.Itoa(n)
}

// pgAloneSQL is the query of the same n rows' text PostgreSQL alone runs.
func (f sizeFormat) pgAloneSQL(n int) string {
	from := "(select * from api.size_rows order by id limit " + strconv.Itoa(n) + ") t"
	if f.rpc {
		from = "api.size_rows_upto(" + strconv.Itoa(n) + ") t"
	}
	return "select " + f.rowText + " from " + from
}

// sizeStep is one measured step.
type sizeStep struct {
	format     string
	rows, conc int
	pgrest, pg time.Duration
	bytes      int64
	peakRSSKB  int64
	startRSSKB int64
}

// measureSizes runs the size series and prints it.
func measureSizes(ctx context.Context, e *env, opt options) error {
	if len(opt.sizes) == 0 {
		return nil
	}
	largest := slices.Max(opt.sizes)
	if err := pgtest.ExecSQL(ctx, e.superDSN, fmt.Sprintf(sizeRowsSQL, largest)); err != nil {
		return fmt.Errorf("making api.size_rows: %w", err)
	}
	srv, err := startSizeServer(ctx, e, opt)
	if err != nil {
		return err
	}
	defer srv.stop()

	var steps []sizeStep
	for _, f := range sizeFormats {
		for _, n := range opt.sizes {
			st, err := srv.measure(ctx, e, f, n, 1)
			if err != nil {
				return err
			}
			steps = append(steps, st)
		}
	}
	for _, f := range sizeFormats {
		st, err := srv.measure(ctx, e, f, largest, sizeConc)
		if err != nil {
			return err
		}
		steps = append(steps, st)
	}
	printSizes(steps, opt.pool)
	return nil
}

// printSizes prints the series' table.
func printSizes(steps []sizeStep, pool int) {
	fmt.Printf("Big reads (a process of its own, db_pool %d; median of %d rounds; the machine's other load makes these noisy):\n", pool, sizeRounds)
	fmt.Printf("  %-5s %9s %5s %10s %10s %10s %8s %12s\n", "form", "rows", "conc", "MB/resp", "pgrest", "pg alone", "ratio", "peak RSS MB")
	for _, s := range steps {
		fmt.Printf("  %-5s %9d %5d %10.1f %10s %10s %7.2fx %12.1f\n", s.format, s.rows, s.conc,
			float64(s.bytes)/1e6, s.pgrest.Round(time.Millisecond), s.pg.Round(time.Millisecond),
			float64(s.pgrest)/float64(s.pg), float64(s.peakRSSKB)/1024)
	}
	fmt.Println("  rpc: the rows as JSON through GET /rpc/size_rows_upto?n=rows, a plpgsql set-returning function.")
	fmt.Println("  pg alone: pgconn reading the same rows' text from PostgreSQL, as many queries at once as conc.")
	fmt.Println("  peak RSS: VmHWM of Caddy+pgrest during the step (reset before it).")
}

// sizeServer is Caddy+pgrest in a process of its own.
type sizeServer struct {
	*caddyProcess
	client *http.Client
}

// startSizeServer starts this program as Caddy with pgrest on the bench
// database and waits until it answers.
func startSizeServer(ctx context.Context, e *env, opt options) (*sizeServer, error) {
	proc, err := startCaddyProcess(e, opt, "pgrest-bench-sizes-")
	if err != nil {
		return nil, err
	}
	s := &sizeServer{caddyProcess: proc,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: sizeConc, DisableCompression: true}}}
	for try := 0; ; try++ {
		_, err := s.get(ctx, e, sizeFormats[0], 1)
		if err == nil {
			return s, nil
		}
		if eerr := s.exitedEarly(); eerr != nil || try == 100 || ctx.Err() != nil {
			s.stop()
			if eerr != nil {
				return nil, eerr
			}
			return nil, s.withLog(fmt.Errorf("Caddy+pgrest does not answer: %w", err))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *sizeServer) stop() {
	s.client.CloseIdleConnections()
	s.caddyProcess.stop()
}

// get reads n rows in format f and returns the body's length.
func (s *sizeServer) get(ctx context.Context, e *env, f sizeFormat, n int) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.baseURL+f.path(n), nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", e.authz)
	req.Header.Set("Accept", f.accept)
	res, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	size, err := io.Copy(io.Discard, res.Body)
	if err == nil && res.StatusCode != http.StatusOK {
		err = fmt.Errorf("status %d", res.StatusCode)
	}
	return size, err
}

// measure runs one step: conc requests at once for n rows in format f,
// then PostgreSQL alone the same, sizeRounds times each.
func (s *sizeServer) measure(ctx context.Context, e *env, f sizeFormat, n, conc int) (sizeStep, error) {
	st := sizeStep{format: f.name, rows: n, conc: conc}
	pid := s.cmd.Process.Pid
	var err error
	if st.startRSSKB, _, err = procMemory(pid); err != nil {
		return st, err
	}
	// Writing 5 resets VmHWM to VmRSS (Linux 4.0 and later).
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
	sql := f.pgAloneSQL(n)
	conns := make([]*pgconn.PgConn, conc)
	for i := range conns {
		if conns[i], err = pgconn.Connect(ctx, e.superDSN); err != nil {
			return st, err
		}
		defer conns[i].Close(context.Background())
	}
	var pgrestTimes, pgTimes []time.Duration
	for range sizeRounds {
		d, size, err := concurrently(conc, func(int) (int64, error) { return s.get(ctx, e, f, n) })
		if err != nil {
			return st, fmt.Errorf("%s %d rows: %w", f.name, n, err)
		}
		pgrestTimes, st.bytes = append(pgrestTimes, d), size/int64(conc)
		d, _, err = concurrently(conc, func(i int) (int64, error) { return pgAlone(ctx, conns[i], sql) })
		if err != nil {
			return st, fmt.Errorf("PostgreSQL alone, %s %d rows: %w", f.name, n, err)
		}
		pgTimes = append(pgTimes, d)
	}
	if _, st.peakRSSKB, err = procMemory(pid); err != nil {
		return st, err
	}
	st.pgrest, st.pg = medianDuration(pgrestTimes), medianDuration(pgTimes)
	return st, nil
}

// medianDuration is main.go's median of durations.
func medianDuration(ds []time.Duration) time.Duration {
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = float64(d)
	}
	return time.Duration(median(xs))
}

// concurrently runs op conc times at once and returns the wall time and
// the bytes they read.
func concurrently(conc int, op func(i int) (int64, error)) (time.Duration, int64, error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var total int64
	var first error
	start := time.Now()
	for i := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := op(i)
			mu.Lock()
			defer mu.Unlock()
			total += n
			if first == nil {
				first = err
			}
		}()
	}
	wg.Wait()
	return time.Since(start), total, first
}

// pgAlone reads sql's rows on pg, row by row, and returns the bytes of
// text read.
func pgAlone(ctx context.Context, pg *pgconn.PgConn, sql string) (int64, error) {
	rr := pg.ExecParams(ctx, sql, nil, nil, nil, nil)
	var n int64
	for rr.NextRow() {
		n += int64(len(rr.Values()[0]))
	}
	_, err := rr.Close()
	return n, err
}

// parseSizes reads -sizes: row counts, comma-separated; empty for none.
func parseSizes(v string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-sizes: %q is not a row count", f)
		}
		out = append(out, n)
	}
	return out, nil
}
