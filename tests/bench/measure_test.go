package main

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// The /proc readers read this process: its parent, its CPU time, its
// memory.
func TestProcReadersReadThisProcess(t *testing.T) {
	st, err := readStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if st.ppid != os.Getppid() {
		t.Errorf("ppid %d, want %d", st.ppid, os.Getppid())
	}
	// Spin a little so the CPU counters move.
	for start := time.Now(); time.Since(start) < 20*time.Millisecond; {
	}
	if d := processTime(os.Getpid()); d <= 0 {
		t.Errorf("processTime of this process is %v", d)
	}
	if d := processCPU(); d <= 0 {
		t.Errorf("processCPU is %v", d)
	}
	rss, hwm, err := procMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if rss <= 0 || hwm < rss {
		t.Errorf("VmRSS %d kB, VmHWM %d kB", rss, hwm)
	}
	if d := processTime(1 << 30); d != 0 {
		t.Errorf("a process that does not exist has %v of CPU time", d)
	}
}

// The caddy+raw site adapts beside pgrest's into a second server of the
// same shape: one route, matched on the host alone, whose subroute runs
// the one handler.
func TestCaddyRawSiteIsShapedLikePgrests(t *testing.T) {
	text := pgresttest.Caddyfile(8001, pgrestDirectives("postgres://a@127.0.0.1/db", 10),
		pgresttest.Options{LogLevel: "ERROR", Sites: caddyRawSite(8002, "")})
	cfg, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(text), nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %v", warnings)
	}
	var doc struct {
		Apps struct {
			HTTP struct {
				Servers map[string]json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(cfg, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Apps.HTTP.Servers) != 2 {
		t.Fatalf("want 2 servers, got %s", cfg)
	}
	// With the innermost handler and the port blanked, both servers are
	// the same.
	var shapes []string
	for _, raw := range doc.Apps.HTTP.Servers {
		var server map[string]any
		if err := json.Unmarshal(raw, &server); err != nil {
			t.Fatal(err)
		}
		server["listen"] = "PORT"
		inner, err := innermostHandler(server)
		if err != nil {
			t.Fatalf("%v: %s", err, raw)
		}
		inner["handler"] = "HANDLER"
		for k := range inner {
			if k != "handler" {
				delete(inner, k)
			}
		}
		b, _ := json.Marshal(server)
		shapes = append(shapes, string(b))
	}
	if shapes[0] != shapes[1] {
		t.Errorf("the two servers differ but for their handler:\n%s\n%s", shapes[0], shapes[1])
	}
}

// innermostHandler is routes[0].handle[0].routes[0].handle[0] of a
// server: the site's handler inside the subroute Caddy wraps it in.
func innermostHandler(server map[string]any) (map[string]any, error) {
	first := func(m map[string]any, key string) (map[string]any, error) {
		list, ok := m[key].([]any)
		if !ok || len(list) != 1 {
			return nil, fmt.Errorf("want one element in %s", key)
		}
		e, ok := list[0].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s[0] is not an object", key)
		}
		return e, nil
	}
	cur := server
	for _, key := range []string{"routes", "handle", "routes", "handle"} {
		var err error
		if cur, err = first(cur, key); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

// A window's server time counts what each process used meanwhile: one
// that ended counts nothing (not minus its earlier time), one that
// started counts all of its time.
func TestServerTimeSinceCountsEachProcess(t *testing.T) {
	before := map[int]time.Duration{1: 10 * time.Millisecond, 2: 50 * time.Millisecond, 3: 7 * time.Millisecond}
	after := map[int]time.Duration{1: 12 * time.Millisecond, 3: 8 * time.Millisecond, 4: 3 * time.Millisecond}
	if got, want := since(before, after), 6*time.Millisecond; got != want {
		t.Errorf("since = %v, want %v", got, want)
	}
}

// The load generator's CPU time is kept apart from the server's through
// the windows, so that the Go side's goal can leave it out while the
// process column still covers it.
func TestClientCPUIsKeptApartFromTheServers(t *testing.T) {
	var total sample
	total.add(&sample{served: 10, cpu: 1000 * time.Microsecond, clientCPU: 600 * time.Microsecond, dbCPU: 400 * time.Microsecond})
	total.add(&sample{served: 30, cpu: 3000 * time.Microsecond, clientCPU: 1400 * time.Microsecond, dbCPU: 800 * time.Microsecond})
	self, client, db := total.cpuPerRequest()
	if self != 100*time.Microsecond || client != 50*time.Microsecond || db != 30*time.Microsecond {
		t.Errorf("per request: server %v, client %v, database %v; want 100µs, 50µs, 30µs", self, client, db)
	}
	if _, _, db := (&sample{}).cpuPerRequest(); db != 0 {
		t.Errorf("no request served gives %v", db)
	}
}

// caddy+raw's CPU per request at pgrest's pace is read on the line
// through its paced and unpaced points, and at the nearer point outside
// them.
func TestCaddyRawAtPgrestsPace(t *testing.T) {
	us := time.Microsecond
	for _, c := range []struct {
		pgrest, paced, unpaced float64
		want                   time.Duration
	}{
		{pgrest: 5000, paced: 4000, unpaced: 6000, want: 120 * us}, // halfway
		{pgrest: 4500, paced: 4000, unpaced: 6000, want: 130 * us},
		{pgrest: 3000, paced: 4000, unpaced: 6000, want: 140 * us}, // slower than both
		{pgrest: 7000, paced: 4000, unpaced: 6000, want: 100 * us}, // faster than both
		{pgrest: 5000, paced: 6000, unpaced: 6000, want: 140 * us}, // one point
	} {
		r := &cell{rate: []float64{c.pgrest, c.unpaced, c.paced},
			serverCPU: []time.Duration{0, 100 * us, 140 * us}}
		got, slow, fast := caddyRawAtPgrestsPace(r, 1, 2)
		if got != c.want || slow != c.paced || fast != c.unpaced {
			t.Errorf("pgrest at %.0f, caddy+raw@pgrest at %.0f, caddy+raw at %.0f: %v between %.0f and %.0f, want %v",
				c.pgrest, c.paced, c.unpaced, got, slow, fast, c.want)
		}
	}
}
