package security

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

const (
	// workers is how many requests are in flight at once: enough to keep
	// two cores busy, few enough not to starve the database.
	workers = 4
	// requestTimeout ends a request that hangs; generous for a loaded
	// machine, since how long a request takes is no finding: a pg_sleep
	// that ran is told by its 57014 (statementTimeoutInForce).
	requestTimeout = time.Minute
	// budget bounds the whole run, so that a server that hangs fails the
	// test instead of holding CI. Under the race detector on two cores
	// the run takes about two minutes; a loaded machine may take several
	// times that.
	budget = 15 * time.Minute
)

// statementTimeoutInForce checks the fixture's statement_timeout for the
// authenticator in this database (4.5 s, set by runSettings), which every
// request's session has: the payloads sleep 5 s, so a pg_sleep that ran
// is cancelled by it and answered 500 with 57014, whatever the machine's
// speed, instead of being told by how long it took.
func statementTimeoutInForce(t *testing.T) {
	t.Helper()
	n := pgresttest.SQLInt(t, db.SuperDSN, `select count(*) from pg_db_role_setting s
		join pg_roles r on r.oid = s.setrole
		join pg_database d on d.oid = s.setdatabase
		where r.rolname = 'authenticator' and d.datname = current_database()
		  and 'statement_timeout=4500ms' = any(s.setconfig)`)
	if n != 1 {
		t.Fatal("the authenticator has no statement_timeout of 4500ms in this database: a pg_sleep that ran would go unseen")
	}
}

// TestEveryPayloadAtEveryInputPointStaysData sends each payload of the
// corpus to each input point, one request each, and checks that none ran
// as SQL or leaked what its role may not read. Every failing request is
// recorded; the failure lists them grouped by input point and status.
func TestEveryPayloadAtEveryInputPointStaysData(t *testing.T) {
	payloads := loadCorpus(t)
	if len(payloads) < minPayloads {
		t.Fatalf("the corpus holds %d distinct payloads, want at least %d", len(payloads), minPayloads)
	}
	statementTimeoutInForce(t)
	s := startServer(t)
	points := inputPoints(userToken(t))
	client := newClient(workers)
	defer client.CloseIdleConnections()

	found := &findings{}
	initial := dbState(t)
	baseline := initial
	deadline := time.Now().Add(budget)
	start := time.Now()
	var sent, unsendable, unsent atomic.Int64
	type pointTime struct {
		name string
		took time.Duration
		n    int
	}
	var times []pointTime

	for _, point := range points {
		var probes []probe
		for _, p := range payloads {
			probes = append(probes, point.probes(p)...)
		}
		began := time.Now()
		runBatch(probes, workers, func(pr probe) {
			if time.Now().After(deadline) {
				unsent.Add(1)
				return
			}
			o := send(client, s.URL, pr)
			if o.unsendable {
				unsendable.Add(1)
				return
			}
			sent.Add(1)
			check(found, pr, o)
		})
		times = append(times, pointTime{point.name, time.Since(began), len(probes)})

		// The canaries, the tripwire and the catalog after each point's
		// batch; on a change, replay the batch one request at a time to
		// name the first that makes it.
		if now := dbState(t); now != baseline {
			diff := stateDiff(baseline, now)
			culprit := replayToFind(t, s.URL, probes, deadline)
			found.add(point.name, "SQL ran: "+diff, 0, culprit)
			resetCanaries(t)
			baseline = dbState(t)
		}
	}
	took := time.Since(start)

	sort.Slice(times, func(i, j int) bool { return times[i].took > times[j].took })
	var slowest []string
	for _, pt := range times[:min(5, len(times))] {
		slowest = append(slowest, fmt.Sprintf("%s %s (%d)", pt.name, pt.took.Round(time.Millisecond), pt.n))
	}
	t.Logf("%d payloads × %d input points: %d requests sent in %s (%.0f/s), %d the client could not send; slowest points: %s",
		len(payloads), len(points), sent.Load(), took.Round(time.Millisecond), float64(sent.Load())/took.Seconds(),
		unsendable.Load(), strings.Join(slowest, ", "))

	if final := dbState(t); final != initial {
		found.add("the whole run", "the database changed: "+stateDiff(initial, final), 0, "(see the input points above)")
	}
	if n := unsent.Load(); n > 0 {
		t.Errorf("the run went over its budget of %s: %d requests were not sent", budget, n)
	}
	if !found.empty() {
		t.Error(found.report())
	}
}

// runBatch calls do on every probe from n goroutines.
func runBatch(probes []probe, n int, do func(probe)) {
	ch := make(chan probe)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pr := range ch {
				do(pr)
			}
		}()
	}
	for _, pr := range probes {
		ch <- pr
	}
	close(ch)
	wg.Wait()
}

// check records what is wrong with one response: a statement cut by the
// statement timeout (an injected pg_sleep that ran), another 5xx, a
// response that holds a forbidden text, or no response at all.
func check(found *findings, pr probe, o outcome) {
	if o.err != nil {
		found.add(pr.point, "no response", 0, describe(pr, o))
		return
	}
	switch {
	case o.status >= 500 && holds(o, "57014") != "":
		found.add(pr.point, "statement timeout, 57014 (pg_sleep ran?)", o.status, describe(pr, o))
	case o.status >= 500:
		found.add(pr.point, "5xx", o.status, describe(pr, o))
	}
	for text, what := range forbidden() {
		if where := holds(o, text); where != "" {
			found.add(pr.point, "leak of "+what+" in the "+where, o.status, describe(pr, o))
		}
	}
}

// holds says where in the response text appears: "body", "header" or "".
func holds(o outcome, text string) string {
	if strings.Contains(string(o.body), text) {
		return "body"
	}
	for name, vs := range o.header {
		if strings.Contains(name, text) {
			return "header"
		}
		for _, v := range vs {
			if strings.Contains(v, text) {
				return "header"
			}
		}
	}
	return ""
}

// replayToFind puts the canaries back and sends probes one at a time,
// reading the state after each, until one changes it: that request is
// described. A change that does not come back (an object that exists now)
// is reported as not found.
func replayToFind(t *testing.T, base string, probes []probe, deadline time.Time) string {
	t.Helper()
	resetCanaries(t)
	before := dbState(t)
	c := newClient(1)
	defer c.CloseIdleConnections()
	for _, pr := range probes {
		if time.Now().After(deadline) {
			return "(the budget ran out before the replay found the request)"
		}
		o := send(c, base, pr)
		if o.unsendable {
			continue
		}
		if after := dbState(t); after != before {
			return "first request to change it: " + describe(pr, o)
		}
	}
	return "(replaying the batch one request at a time did not change it again)"
}
