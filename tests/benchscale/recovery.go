package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The goals of the reload and recovery figures. The tests assert that
// these things happen (tests/faults/reload); how soon is measured here,
// where a missed goal says so instead of failing a test for the sake of
// whatever else shares the machine.
const (
	// notifyGoal: NOTIFY pgrst, 'reload schema' shows a new table.
	notifyGoal = time.Second
	// outageAnswerGoal: a request while the database is down is answered
	// 503 at once, not after db_pool_acquisition_timeout.
	outageAnswerGoal = time.Second
	// backGoal: the API serves again after the database comes back,
	// however long it was away (README: within about a second).
	backGoal = 2 * time.Second
)

// notifyRounds is how many times the NOTIFY reload is timed.
const notifyRounds = 5

// recoveryTimeout bounds every wait of the measurements: past it, the
// thing waited for did not happen, an error rather than a slow figure.
const recoveryTimeout = 30 * time.Second

// notifyResult is the time from NOTIFY to the new table served, sorted.
type notifyResult []time.Duration

// measureNotify creates a table notifyRounds times, checks that the
// direct variant does not serve it, sends NOTIFY pgrst, 'reload schema'
// and times until the variant serves it, polling every 5ms.
func measureNotify(ctx context.Context, e *env) (notifyResult, error) {
	var times notifyResult
	for round := 1; round <= notifyRounds; round++ {
		table := fmt.Sprintf("notified_%d", round)
		if err := pgtest.ExecSQL(ctx, e.super, fmt.Sprintf(
			"create table api.%s (id int primary key); grant select on api.%[1]s to web_anon", table)); err != nil {
			return nil, err
		}
		path := e.direct.url + "/" + table
		if status, body, err := e.get(path); err != nil || status != http.StatusNotFound {
			return nil, fmt.Errorf("GET /%s before the NOTIFY: %d %s %v, want 404", table, status, body, err)
		}
		if err := pgtest.ExecSQL(ctx, e.super, "notify pgrst, 'reload schema'"); err != nil {
			return nil, err
		}
		sent := time.Now()
		for {
			status, body, err := e.get(path)
			if err == nil && status == http.StatusOK {
				break
			}
			if err == nil && status != http.StatusNotFound {
				return nil, fmt.Errorf("GET /%s while reloading: %d %s, want 404, then 200", table, status, body)
			}
			if time.Since(sent) > recoveryTimeout {
				return nil, fmt.Errorf("the new table %s is not served %s after the NOTIFY (last: %d %s %v)", table, recoveryTimeout, status, body, err)
			}
			time.Sleep(5 * time.Millisecond)
		}
		times = append(times, time.Since(sent))
	}
	slices.Sort(times)
	return times, nil
}

// outageResult is what requests got while the database was down and
// when it came back.
type outageResult struct {
	// answers counts the 503 PGRST000 answers during the outage; median
	// and slowest are their times.
	answers         int
	median, slowest time.Duration
	// back is from the database's return to the first 200.
	back time.Duration
}

// measureOutage serves pgrest alone, in a config of its own that replaces
// the variants', with db_uri through a closed pgtest.Gate: the database
// is down when pgrest starts. For outage it reads every 250ms (each
// answer must be 503 PGRST000), then opens the gate and reads every 20ms
// until a 200.
func measureOutage(ctx context.Context, e *env, outage time.Duration) (outageResult, error) {
	u, err := url.Parse(e.super)
	if err != nil || u.Host == "" {
		return outageResult{}, fmt.Errorf("the database's address is not a URL's (%v): no gate can stand in front of it", err)
	}
	gate, err := pgtest.NewGate(u.Host)
	if err != nil {
		return outageResult{}, err
	}
	defer gate.Close()
	u.Host = gate.Addr
	gated := &site{name: "gated", dirs: pgresttest.Directives(e.common,
		"db_uri "+pgresttest.Quote(pgtest.DSNFor(u.String(), "authenticator", fixtures.AuthenticatorPassword)))}
	// Quiet: pgrest logs each failed attempt to reach the database.
	if err := serveLogging("output discard", gated); err != nil {
		return outageResult{}, err
	}

	var res outageResult
	var during []time.Duration
	for start := time.Now(); time.Since(start) < outage; time.Sleep(250 * time.Millisecond) {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		sent := time.Now()
		status, body, err := e.get(gated.url + "/items?id=eq.1")
		during = append(during, time.Since(sent))
		if err != nil || status != http.StatusServiceUnavailable || errorCode(body) != "PGRST000" {
			return res, fmt.Errorf("during the outage: %d %s %v, want 503 PGRST000", status, body, err)
		}
	}
	slices.Sort(during)
	res.answers, res.median, res.slowest = len(during), during[len(during)/2], during[len(during)-1]

	if err := gate.Open(); err != nil {
		return res, err
	}
	opened := time.Now()
	for {
		status, body, err := e.get(gated.url + "/items?id=eq.1")
		if err == nil && status == http.StatusOK {
			res.back = time.Since(opened)
			return res, nil
		}
		if time.Since(opened) > recoveryTimeout {
			return res, fmt.Errorf("still %d %s %v %s after the database came back", status, body, err, recoveryTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// get sends a GET to url and returns the status and body.
func (e *env) get(url string) (int, string, error) {
	res, err := e.client.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return res.StatusCode, string(body), err
}

// errorCode is the code of an error body, "" for another body.
func errorCode(body string) string {
	var e struct{ Code string }
	_ = json.Unmarshal([]byte(body), &e)
	return e.Code
}

// printRecovery prints the figures and sets them against the goals.
func printRecovery(n notifyResult, o outageResult, outage time.Duration) {
	fmt.Printf("\nschema reload and outage recovery:\n")
	fmt.Printf("  NOTIFY pgrst, 'reload schema' to a new table served (direct, %d rounds): median %s, worst %s\n",
		len(n), ms(n[len(n)/2]), ms(n[len(n)-1]))
	fmt.Printf("  database down at start for %s: %d answers of 503 PGRST000, median %s, slowest %s; first 200 %s after it came back\n",
		outage, o.answers, ms(o.median), ms(o.slowest), ms(o.back))
	fmt.Println("Goals:")
	goal := func(what string, got, want time.Duration) {
		verdict := "met"
		if got >= want {
			verdict = "NOT met"
		}
		fmt.Printf("  %-44s %-10s < %-10s %s\n", what, ms(got), ms(want), verdict)
	}
	goal("NOTIFY reload, new table served (worst)", n[len(n)-1], notifyGoal)
	goal("a 503 while the database is down (slowest)", o.slowest, outageAnswerGoal)
	goal("first 200 after the database is back", o.back, backGoal)
	fmt.Println(strings.TrimSpace(`
A NOTIFY is timed from its commit to the first 200 of the new table (reads every 5ms). The database is
down behind a closed TCP gate when pgrest starts (its backoff at its cap by the end), and back when the
gate opens; reads every 250ms during the outage, then every 20ms.`))
}
