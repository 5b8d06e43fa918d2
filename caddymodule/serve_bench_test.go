package caddymodule

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The benchmarks below measure one request's cost in this process:
// Handler.ServeHTTP as Caddy calls it, against a real PostgreSQL, the
// response written to a writer that keeps nothing. What they count is
// pgrest and the pgx client; Caddy's routing and HTTP are not in it.
//
//	go test -run '^$' -bench ServeHTTP -benchmem ./caddymodule/
//
// cpu-µs/op is this process's CPU time (user and system) per request:
// PostgreSQL runs in processes of its own, so unlike ns/op it leaves out
// the wait for the database.

var bench struct {
	once    sync.Once
	cluster *pgtest.Cluster
	dsn     string // as the authenticator
	err     error
}

// TestMain stops the cluster a benchmark started; tests start none.
func TestMain(m *testing.M) {
	code := m.Run()
	if bench.cluster != nil {
		bench.cluster.Stop()
	}
	os.Exit(code)
}

var benchFixture = fixtures.Roles("secret") + fixtures.BenchItemsSQL(1000) + `
analyze api.items;
grant select on api.items to web_anon, webuser;
create table api.item_log (
	id      bigint generated always as identity primary key,
	item_id int not null,
	note    text
);
grant select, insert on api.item_log to webuser;
`

// benchDatabase starts PostgreSQL once per test binary and loads the
// fixture.
func benchDatabase(b *testing.B) string {
	b.Helper()
	bench.once.Do(func() {
		if bench.cluster, bench.err = pgtest.Start(); bench.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var super string
		if super, bench.err = bench.cluster.NewDatabase(ctx, "caddymodule_bench"); bench.err != nil {
			return
		}
		if bench.err = pgtest.ExecSQL(ctx, super, benchFixture); bench.err != nil {
			return
		}
		bench.dsn = pgtest.DSNFor(super, "authenticator", "secret")
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.dsn
}

// discardWriter is a ResponseWriter that keeps the status and the body's
// length and reuses its header map, so that the benchmark's own
// allocations stay out of the count.
type discardWriter struct {
	header http.Header
	status int
	n      int
	body   bytes.Buffer
	keep   bool
}

func (w *discardWriter) Header() http.Header { return w.header }
func (w *discardWriter) WriteHeader(s int)   { w.status = s }
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.keep {
		w.body.Write(p)
	}
	w.n += len(p)
	return len(p), nil
}

func (w *discardWriter) reset() {
	clear(w.header)
	w.status, w.n = 0, 0
	w.body.Reset()
}

func BenchmarkServeHTTP(b *testing.B) {
	dsn := benchDatabase(b)
	h := Handler{DBURI: dsn, DBSchemas: []string{"api"}, DBAnonRole: "web_anon", JWTSecret: testSecret,
		Settings: Settings{LogLevel: "error"}}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	if err := h.Provision(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cancel()
		_ = h.Cleanup()
	})
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"role": "webuser", "exp": time.Now().Add(time.Hour).Unix(),
	}).SignedString([]byte(testSecret))
	if err != nil {
		b.Fatal(err)
	}
	next := nextHandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })
	// cancels end the requests' contexts once they are served.
	var cancels []context.CancelFunc
	endRequests := func() {
		for _, cancel := range cancels {
			cancel()
		}
		cancels = cancels[:0]
	}

	for _, wl := range []struct {
		name, method, target, body string
		status                     int
		prefix                     string
	}{
		{"items_eq", http.MethodGet, "/items?id=eq.42", "", http.StatusOK, `[{"id":`},
		{"items_page", http.MethodGet, "/items?order=id&limit=25", "", http.StatusOK, `[{"id":`},
		{"items_post", http.MethodPost, "/item_log", `{"item_id":42,"note":"from the benchmark"}`, http.StatusCreated, ""},
	} {
		u, err := url.Parse("http://127.0.0.1" + wl.target)
		if err != nil {
			b.Fatal(err)
		}
		// A request as Caddy hands it over: a context that is cancelled
		// when the request ends, as net/http gives every request, with
		// the replacer and the access log's extra fields in it; the
		// headers the bench sends.
		newRequest := func() *http.Request {
			r := &http.Request{Method: wl.method, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
				Host: "127.0.0.1", RequestURI: wl.target, Body: http.NoBody, Header: http.Header{
					"Authorization": {"Bearer " + token},
					"Accept":        {"application/json"},
					"User-Agent":    {"pgrest-bench"},
				}}
			if wl.body != "" {
				r.Body = io.NopCloser(strings.NewReader(wl.body))
				r.ContentLength = int64(len(wl.body))
				r.Header.Set("Content-Type", "application/json")
			}
			c, cancel := context.WithCancel(context.Background())
			cancels = append(cancels, cancel)
			c = context.WithValue(c, caddy.ReplacerCtxKey, caddy.NewReplacer())
			c = context.WithValue(c, caddyhttp.ExtraLogFieldsCtxKey, new(caddyhttp.ExtraLogFields))
			return r.WithContext(c)
		}
		w := &discardWriter{header: http.Header{}, keep: true}
		// The schema cache loads in the background: wait for it, and
		// check the answer once.
		deadline := time.Now().Add(30 * time.Second)
		for {
			w.reset()
			if err := h.ServeHTTP(w, newRequest(), next); err != nil {
				b.Fatal(err)
			}
			if w.status == wl.status || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if w.status != wl.status || !strings.HasPrefix(w.body.String(), wl.prefix) {
			b.Fatalf("%s: status %d, body %.200s", wl.name, w.status, w.body.String())
		}
		endRequests()
		w.keep = false
		requests := make([]*http.Request, 0, 1024)

		b.Run(wl.name, func(b *testing.B) {
			// Requests are made ahead, in batches, outside the timer.
			b.ReportAllocs()
			b.StopTimer()
			var cpu time.Duration
			for i := 0; i < b.N; {
				requests = requests[:0]
				for j := i; j < b.N && len(requests) < cap(requests); j++ {
					requests = append(requests, newRequest())
				}
				b.StartTimer()
				cpu0 := processCPU()
				for _, r := range requests {
					w.reset()
					_ = h.ServeHTTP(w, r, next)
				}
				cpu += processCPU() - cpu0
				b.StopTimer()
				endRequests()
				if w.status != wl.status {
					b.Fatalf("status %d", w.status)
				}
				i += len(requests)
			}
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// processCPU is the CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(fmt.Sprintf("getrusage: %v", err))
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
