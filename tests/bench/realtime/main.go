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
create publication bench_realtime for table items;
`

func main() {
	n := flag.Int("n", 5000, "changes (single-row inserts) per run")
	subsFlag := flag.String("subs", "1,100,1000", "subscriber counts, comma-separated")
	writers := flag.Int("writers", 4, "concurrent writing connections")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the runs to this file")
	flag.Parse()
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
	var counts []int
	for _, s := range strings.Split(*subsFlag, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			fail("-subs", err)
		}
		counts = append(counts, c)
	}
	cluster, err := pgtest.StartWith(pgtest.Options{LogicalReplication: true})
	if err != nil {
		fail("starting PostgreSQL", err)
	}
	defer cluster.Stop()
	ctx := context.Background()
	fmt.Printf("realtime change feed: %d single-row inserts per run from %d connections, one table, no row-level security\n\n", *n, *writers)
	fmt.Printf("%-28s %12s %14s %10s %10s\n", "run", "changes/s", "deliveries/s", "p50", "p99")
	for i, c := range append([]int{0}, counts...) {
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
		r := runFeed(ctx, super, auth, *n, *writers, c, i)
		fmt.Printf("%-28s %12.0f %14.0f %10s %10s\n", fmt.Sprintf("feed, %d subscribers", c),
			r.changesPerSec, r.deliveriesPerSec, r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond))
	}
}

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "bench realtime: %s: %v\n", what, err)
	os.Exit(1)
}

// write inserts ids 1..n from several connections, one row per
// transaction, and records when each commit returned.
func write(ctx context.Context, dsn string, n, writers int, committed []atomic.Int64) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				fail("connecting a writer", err)
			}
			defer conn.Close(ctx)
			for {
				id := int(next.Add(1))
				if id > n {
					return
				}
				if _, err := conn.Exec(ctx, "insert into items values ($1, 'body', $1)", id); err != nil {
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
// and waits until every subscriber has every change.
func runFeed(ctx context.Context, super, auth string, n, writers, subs, run int) result {
	pool, err := pgxpool.New(ctx, auth)
	if err != nil {
		fail("opening the pool", err)
	}
	defer pool.Close()
	feed, err := changes.Start(ctx, changes.Config{ConnString: auth, Publication: "bench_realtime",
		SlotName: fmt.Sprintf("bench_realtime_%d", run), SubscriberQueue: 1 << 20}, pool, nil)
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
	remaining.Store(int64(n * subs))
	who := changes.Identity{Role: "bench_user", Claims: []byte(`{"role":"bench_user"}`)}
	for range subs {
		_, _, err := feed.Subscribe(ctx, who, []changes.Spec{{Event: "INSERT", Schema: "public", Table: "items"}},
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
	write(ctx, super, n, writers, committed)
	select {
	case <-done:
	case <-time.After(10 * time.Minute):
		fail("waiting for deliveries", fmt.Errorf("%d of %d missing", remaining.Load(), n*subs))
	}
	elapsed := time.Since(start)
	slices.Sort(latencies)
	return result{
		changesPerSec:    float64(n) / elapsed.Seconds(),
		deliveriesPerSec: float64(n*subs) / elapsed.Seconds(),
		p50:              percentile(latencies, 0.50),
		p99:              percentile(latencies, 0.99),
	}
}

// idOf reads "record":{...,"id":N,...} from a payload without decoding
// all of it: the bench measures the feed, not encoding/json.
func idOf(data []byte) int {
	s := string(data)
	i := strings.Index(s, `"id":`)
	if i < 0 {
		return 1
	}
	s = s[i+5:]
	j := strings.IndexAny(s, ",}")
	id, _ := strconv.Atoi(s[:j])
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
	go write(ctx, super, n, writers, committed)
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
