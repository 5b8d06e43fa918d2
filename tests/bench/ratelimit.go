package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/redistest"
)

// The rate limit variants (on unless -ratelimit=false): pgrest with one
// rate limit configured, counted in this Caddy's memory
// (pgrest+limit:memory) or in a Redis of its own (pgrest+limit:redis),
// in sites beside pgrest's and measured in the same windows, so that
// what a limit costs is their throughput and latency against pgrest's
// without one. The limit is per role at a rate no load here reaches: it
// counts every request and refuses none, so each variant does all the
// work pgrest does, plus the limit's.
const (
	limitMemoryName = "pgrest+limit:memory"
	limitRedisName  = "pgrest+limit:redis"
)

// benchLimit is the rate limit of the variants' sites.
const benchLimit = "rate_limit bench {\n\t\t\tkey role\n\t\t\trate 1000000000/s\n\t\t\tburst 1000000\n\t\t}"

// rateLimitSites starts a redis-server (stopRedis stops it) and writes
// the variants' sites, with their base URLs by variant name.
func rateLimitSites(authDSN string, pool int) (text string, urls map[string]string, stopRedis func(), err error) {
	dir, err := os.MkdirTemp("", "pgrest-bench-redis-")
	if err != nil {
		return "", nil, nil, err
	}
	redis, err := redistest.New(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, nil, err
	}
	stopRedis = func() {
		redis.Stop()
		_ = os.RemoveAll(dir)
	}
	urls = map[string]string{}
	var b bytes.Buffer
	for name, extra := range map[string][]string{
		limitMemoryName: {benchLimit},
		limitRedisName:  {benchLimit, "rate_limit_redis " + redis.URL},
	} {
		port, err := pgresttest.FreePort()
		if err != nil {
			stopRedis()
			return "", nil, nil, err
		}
		writeSite(&b, port, pgrestDirectives(authDSN, pool), extra)
		urls[name] = fmt.Sprintf("http://127.0.0.1:%d", port)
	}
	return b.String(), urls, stopRedis, nil
}

// writeSite writes a pgrest site on port with dirs and the extra
// subdirective lines.
func writeSite(b *bytes.Buffer, port int, dirs map[string]string, extra []string) {
	fmt.Fprintf(b, "http://127.0.0.1:%d {\n\tpgrest {\n", port)
	for _, line := range append(sortedDirectives(dirs), extra...) {
		fmt.Fprintf(b, "\t\t%s\n", line)
	}
	b.WriteString("\t}\n}\n")
}

// printRateLimits sets each rate limit variant against pgrest without a
// limit, cell by cell: throughput and p50 latency, ÷ pgrest's.
func printRateLimits(variants []*variant, rows []*cell) {
	mem, redis := indexOrNone(variants, limitMemoryName), indexOrNone(variants, limitRedisName)
	if mem < 0 || redis < 0 {
		return
	}
	fmt.Printf("%-11s %4s  %-27s %-27s\n", "workload", "conc", "limit in memory ÷ none", "limit in Redis ÷ none")
	for _, r := range rows {
		cellOf := func(i int) string {
			return fmt.Sprintf("rate %.3f, p50 %.2f", r.rate[i]/max(r.rate[0], 1),
				float64(r.p50s[i])/float64(max(r.p50s[0], 1)))
		}
		fmt.Printf("%-11s %4d  %-27s %-27s\n", r.workload, r.conc, cellOf(mem), cellOf(redis))
	}
	fmt.Println(strings.TrimSpace(`
Rate limits: pgrest with one limit per role that refuses nothing, counted in memory or in Redis
(a redis-server on this machine), over pgrest without one, in the same windows; the one-row read
(items_eq) is the figure of the README.`))
}
