// Command realtime measures pgrest's realtime change feed
// (realtime/changes): how many changes per second go from commit to
// delivery for 1, 100 and 1,000 subscribers on one table, with the
// delivery latency's median and 99th percentile, beside the physical
// limit: how fast the same machine streams and decodes the same changes
// from a replication slot with nothing else to do. make bench runs it;
// no test asserts these figures.
//
//	go run ./tests/bench/realtime -n 5000 -subs 1,100,1000 -writers 4
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgrest/caddy-pgrest/realtime/changes"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
	"go.uber.org/zap"
)

const fixture = `
do $$ begin
  if not exists (select from pg_roles where rolname = 'authenticator') then
    create role authenticator login replication noinherit password 'secret';
  end if;
  if not exists (select from pg_roles where rolname = 'bench_user') then create role bench_user nologin; end if;
end $$;
grant bench_user to authenticator;
create table items (id int primary key, body text, n int);
grant select on items to bench_user;
-- owned: the same rows under row-level security, each owned by one of
-- the subscribers' users (owner u<id mod users>).
create table owned (id int primary key, body text, owner text);
alter table owned enable row level security;
create policy mine on owned for select to bench_user
  using (owner = current_setting('request.jwt.claims', true)::json ->> 'sub');
grant select on owned to bench_user;
create publication bench_realtime for table items, owned;
`

func main() {
	n := flag.Int("n", 5000, "changes (single-row inserts) per run")
	subsFlag := flag.String("subs", "1,100,1000", "subscriber counts, comma-separated")
	writers := flag.Int("writers", 4, "concurrent writing connections")
	rlsFlag := flag.String("rls-subs", "1,100,1000", "subscriber counts of the runs under row-level security, each subscriber its own user")
	verbose := flag.Bool("v", false, "log what the feed logs")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the runs to this file")
	flag.Parse()
	if *verbose {
		logger, _ = zap.NewDevelopment()
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fail("-cpuprofile", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail("-cpuprofile", err)
		}
		defer pprof.StopCPUProfile()
	}
	counts, rlsCounts := parseCounts("-subs", *subsFlag), parseCounts("-rls-subs", *rlsFlag)
	cluster, err := pgtest.StartWith(pgtest.Options{LogicalReplication: true})
	if err != nil {
		fail("starting PostgreSQL", err)
	}
	defer cluster.Stop()
	ctx := context.Background()
	fmt.Printf("realtime change feed: %d single-row inserts per run from %d connections, one table;\n"+
		"RLS runs: each subscriber its own user under a row-level security policy, each row visible to one\n\n", *n, *writers)
	fmt.Printf("%-28s %12s %14s %10s %10s\n", "run", "changes/s", "deliveries/s", "p50", "p99")
	type run struct {
		subs int
		rls  bool
	}
	runs := []run{{}}
	for _, c := range counts {
		runs = append(runs, run{subs: c})
	}
	for _, c := range rlsCounts {
		runs = append(runs, run{subs: c, rls: true})
	}
	for i, rn := range runs {
		c := rn.subs
		super, err := cluster.NewDatabase(ctx, fmt.Sprintf("bench_realtime_%d", i))
		if err != nil {
			fail("creating a database", err)
		}
		if err := pgtest.ExecSQL(ctx, super, fixture); err != nil {
			fail("loading the fixture", err)
		}
		auth := pgtest.DSNFor(super, "authenticator", "secret")
		if c == 0 {
			r := decodeAlone(ctx, super, auth, *n, *writers)
			fmt.Printf("%-28s %12.0f %14s %10s %10s\n", "stream decoded alone", r.changesPerSec, "-",
				r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond))
			continue
		}
		r := runFeed(ctx, super, auth, *n, *writers, c, rn.rls, i)
		name := fmt.Sprintf("feed, %d subscribers", c)
		if rn.rls {
			name = fmt.Sprintf("feed, RLS, %d users", c)
		}
		fmt.Printf("%-28s %12.0f %14.0f %10s %10s\n", name,
			r.changesPerSec, r.deliveriesPerSec, r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond))
	}
}

// logger is the feed's: silent unless -v.
var logger = zap.NewNop()

func parseCounts(name, list string) []int {
	var out []int
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		c, err := strconv.Atoi(s)
		if err != nil || c < 1 {
			fail(name, fmt.Errorf("%q is not a count", s))
		}
		out = append(out, c)
	}
	return out
}

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "bench realtime: %s: %v\n", what, err)
	os.Exit(1)
}

// write inserts ids 1..n into items (or, with users > 0, into owned,
// row i owned by user u<i mod users>) from several connections, one row
// per transaction, and records when each commit returned.
func write(ctx context.Context, dsn string, n, writers, users int, committed []atomic.Int64) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The throwaway cluster runs with synchronous_commit off,
			// where a commit's WAL reaches the walsender only at the
			// WAL writer's next round (wal_writer_delay, 200ms): the
			// writers commit synchronously so that latency is the
			// feed's, not that delay's (fsync is off: it costs little).
			cfg, err := pgx.ParseConfig(dsn)
			if err != nil {
				fail("parsing the DSN", err)
			}
			cfg.RuntimeParams["synchronous_commit"] = "on"
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				fail("connecting a writer", err)
			}
			defer conn.Close(ctx)
			for {
				id := int(next.Add(1))
				if id > n {
					return
				}
				var err error
				if users > 0 {
					_, err = conn.Exec(ctx, "insert into owned values ($1, 'body', 'u' || ($1::int % $2::int))", id, users)
				} else {
					_, err = conn.Exec(ctx, "insert into items values ($1, 'body', $1)", id)
				}
				if err != nil {
					fail("inserting", err)
				}
				committed[id-1].Store(time.Now().UnixNano())
			}
		}()
	}
	wg.Wait()
}

type result struct {
	changesPerSec, deliveriesPerSec float64
	p50, p99                        time.Duration
}

// runFeed starts a feed with subs subscribers to items, writes n rows,
// and waits until every subscriber has every change. With rls they
// subscribe to owned instead, each as a user of its own, and each row
// reaches one of them.
func runFeed(ctx context.Context, super, auth string, n, writers, subs int, rls bool, run int) result {
	pool, err := pgxpool.New(ctx, auth)
	if err != nil {
		fail("opening the pool", err)
	}
	defer pool.Close()
	feed, err := changes.Start(ctx, changes.Config{ConnString: auth, Publication: "bench_realtime",
		SlotName: fmt.Sprintf("bench_realtime_%d", run), SubscriberQueue: 1 << 20}, pool, logger)
	if err != nil {
		fail("starting the feed", err)
	}
	defer feed.Close()
	committed := make([]atomic.Int64, n)
	var (
		mu        sync.Mutex
		latencies = make([]time.Duration, 0, n*subs)
		remaining atomic.Int64
		done      = make(chan struct{})
	)
	total, table, users := n*subs, "items", 0
	if rls {
		total, table, users = n, "owned", subs
	}
	remaining.Store(int64(total))
	for i := range subs {
		who := changes.Identity{Role: "bench_user", Claims: []byte(`{"role":"bench_user"}`)}
		if rls {
			who.Claims = []byte(fmt.Sprintf(`{"role":"bench_user","sub":"u%d"}`, i))
		}
		_, _, err := feed.Subscribe(ctx, who, []changes.Spec{{Event: "INSERT", Schema: "public", Table: table}},
			func(d changes.Delivery) {
				now := time.Now().UnixNano()
				id := idOf(d.Data)
				if at := committed[id-1].Load(); at != 0 {
					mu.Lock()
					latencies = append(latencies, time.Duration(now-at))
					mu.Unlock()
				}
				if remaining.Add(-1) == 0 {
					close(done)
				}
			})
		if err != nil {
			fail("subscribing", err)
		}
	}
	start := time.Now()
	write(ctx, super, n, writers, users, committed)
	select {
	case <-done:
	case <-time.After(5 * time.Minute):
		fail("waiting for deliveries", fmt.Errorf("%d of %d missing", remaining.Load(), total))
	}
	elapsed := time.Since(start)
	slices.Sort(latencies)
	return result{
		changesPerSec:    float64(n) / elapsed.Seconds(),
		deliveriesPerSec: float64(total) / elapsed.Seconds(),
		p50:              percentile(latencies, 0.50),
		p99:              percentile(latencies, 0.99),
	}
}

// idOf reads "record":{...,"id":N,...} from a payload without decoding
// all of it: the bench measures the feed, not encoding/json.
func idOf(data []byte) int {
	i := bytes.Index(data, []byte(`"id":`))
	if i < 0 {
		return 1
	}
	id := 0
	for _, c := range data[i+5:] {
		if c < '0' || c > '9' {
			break
		}
		id = 10*id + int(c-'0')
	}
	return max(id, 1)
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

// decodeAlone is the physical limit: a slot of its own, the same rows
// written while it streams, each message parsed by pglogrepl and nothing
// else done with it. It returns decoded inserts per second from the
// first commit to the last insert decoded, and the latency from each
// commit to its insert decoded.
func decodeAlone(ctx context.Context, super, auth string, n, writers int) result {
	cfg, err := pgconn.ParseConfig(auth)
	if err != nil {
		fail("parsing the DSN", err)
	}
	cfg.RuntimeParams["replication"] = "database"
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		fail("opening a replication connection", err)
	}
	defer conn.Close(ctx)
	if _, err := pglogrepl.CreateReplicationSlot(ctx, conn, "bench_decode", "pgoutput",
		pglogrepl.CreateReplicationSlotOptions{Temporary: true, Mode: pglogrepl.LogicalReplication}); err != nil {
		fail("creating the slot", err)
	}
	if err := pglogrepl.StartReplication(ctx, conn, "bench_decode", 0, pglogrepl.StartReplicationOptions{
		PluginArgs: []string{"proto_version '1'", "publication_names 'bench_realtime'"}}); err != nil {
		fail("starting replication", err)
	}
	committed := make([]atomic.Int64, n)
	latencies := make([]time.Duration, 0, n)
	start := time.Now()
	go write(ctx, super, n, writers, 0, committed)
	for seen := 0; seen < n; {
		msg, err := conn.ReceiveMessage(ctx)
		if err != nil {
			fail("streaming", err)
		}
		cd, ok := msg.(*pgproto3.CopyData)
		if !ok || len(cd.Data) == 0 || cd.Data[0] != pglogrepl.XLogDataByteID {
			continue
		}
		x, err := pglogrepl.ParseXLogData(cd.Data[1:])
		if err != nil {
			fail("parsing", err)
		}
		m, err := pglogrepl.Parse(x.WALData)
		if err != nil {
			fail("decoding", err)
		}
		if ins, ok := m.(*pglogrepl.InsertMessage); ok {
			seen++
			if id, err := strconv.Atoi(string(ins.Tuple.Columns[0].Data)); err == nil && id >= 1 && id <= n {
				if at := committed[id-1].Load(); at != 0 {
					latencies = append(latencies, time.Duration(time.Now().UnixNano()-at))
				}
			}
		}
	}
	elapsed := time.Since(start)
	slices.Sort(latencies)
	return result{changesPerSec: float64(n) / elapsed.Seconds(), p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99)}
}
