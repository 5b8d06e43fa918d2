package ratelimit

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// limit is the rate_limit subdirective's value for one limit.
func limit(name string, fields ...string) string {
	return "rate_limit " + name + " {\n\t\t\t" + strings.Join(fields, "\n\t\t\t") + "\n\t\t}"
}

// itemReads is how many reads of rl.items reached PostgreSQL since the
// last resetStatements.
func itemReads(t *testing.T) int64 {
	t.Helper()
	return pgresttest.SQLInt(t, db.SuperDSN,
		`select coalesce(sum(calls), 0)::bigint from pg_stat_statements where query like '%"rl"."items"%'`)
}

func resetStatements(t *testing.T) {
	t.Helper()
	pgresttest.SQLInt(t, db.SuperDSN, `select count(*) from (select pg_stat_statements_reset()) r`)
}

// A burst over the limit: the first requests pass with the RateLimit
// fields saying what is left, the others get 429 PGRST193 with a
// Retry-After in whole seconds rounded up, are counted by limit and named
// in the access log, and none of them reaches PostgreSQL.
func TestABurstOverTheLimitIsRefusedBeforeTheDatabase(t *testing.T) {
	sites, metricsURL := pgresttest.MetricsSite(t)
	logFile := filepath.Join(t.TempDir(), "access.log")
	s := pgresttest.StartWith(t, dirs(limit("per_role", "key role", "rate 1/d", "burst 3")),
		pgresttest.Options{Sites: sites, LogFile: logFile})
	before := pgresttest.Metric(t, metricsURL, `caddy_pgrest_rate_limited_total{limit="per_role"}`)
	resetStatements(t)

	// 1/d: one request's share comes back after 86400 s, so the state
	// after each request is exact whatever the machine's speed.
	policy := `"per_role";q=1;w=86400`
	for _, state := range []string{`"per_role";r=2;t=86400`, `"per_role";r=1;t=172800`, `"per_role";r=0;t=259200`} {
		s.Get(t, "/items?select=id&order=id").Expect(t, http.StatusOK, `[{"id":1},{"id":2}]`,
			map[string]string{"RateLimit-Policy": policy, "RateLimit": state, "Retry-After": ""})
	}
	for range 7 {
		res := s.Get(t, "/items?select=id&order=id")
		res.ExpectErrorFields(t, http.StatusTooManyRequests, "PGRST193", "Too many requests",
			`The rate limit "per_role" allows no more requests now.`, "Send it again after the seconds Retry-After says.")
		// 86400 s less the moments since the first request, rounded up.
		for name, want := range map[string]string{"Retry-After": "86400", "RateLimit-Policy": policy,
			"RateLimit": `"per_role";r=0;t=86400`} {
			if got := res.Header.Get(name); got != want {
				t.Errorf("%s: %q, want %q", name, got, want)
			}
		}
	}
	if got := itemReads(t); got != 3 {
		t.Errorf("pg_stat_statements counts %d reads of rl.items, want the 3 allowed", got)
	}
	if got := pgresttest.Metric(t, metricsURL, `caddy_pgrest_rate_limited_total{limit="per_role"}`) - before; got != 7 {
		t.Errorf("caddy_pgrest_rate_limited_total{limit=\"per_role\"} rose by %v, want 7", got)
	}
	if n := limitedLogLines(t, logFile, "per_role"); n != 7 {
		t.Errorf("%d access log lines name pgrest_rate_limit per_role with status 429, want 7", n)
	}
}

// limitedLogLines counts the access log's 429 lines naming limit.
func limitedLogLines(t *testing.T, path, limit string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var entry map[string]any
		if json.Unmarshal(sc.Bytes(), &entry) != nil || entry["msg"] != "handled request" {
			continue
		}
		if entry["pgrest_rate_limit"] == limit && entry["status"] == float64(429) && entry["pgrest_code"] == "PGRST193" {
			n++
		}
	}
	return n
}

// One user's burst does not use up another's: the limit is per sub
// claim, found by an RFC 9535 path as jwt_role_claim_key finds the role.
func TestPerClaimLimitsKeepOneUsersBurstFromAnother(t *testing.T) {
	s := pgresttest.StartWith(t, dirs(limit("per_user", "key claim:$.sub", "rate 1/d", "burst 2")), pgresttest.Options{})
	user := func(sub string) []string {
		return pgresttest.Bearer(pgresttest.Token(t, jwtSecret, jwt.MapClaims{"role": fixtures.UserRole, "sub": sub}))
	}
	alice, bob := user("alice"), user("bob")
	statuses := func(n int, auth []string) []int {
		var out []int
		for range n {
			out = append(out, s.Get(t, "/items", auth...).Status)
		}
		return out
	}
	if got := fmt.Sprint(statuses(5, alice)); got != "[200 200 429 429 429]" {
		t.Errorf("alice's burst: %s", got)
	}
	if got := fmt.Sprint(statuses(2, bob)); got != "[200 200]" {
		t.Errorf("bob after alice's burst: %s", got)
	}
}

// A limit of kinds counts only those: a limit on one function leaves
// reads and other calls alone, and sends them no RateLimit fields.
func TestALimitCountsOnlyItsKinds(t *testing.T) {
	s := pgresttest.StartWith(t, dirs(limit("slow_calls", "key role", "rate 1/d", "burst 1", "kinds rpc:slow_fn write")),
		pgresttest.Options{})
	for range 3 {
		res := s.Get(t, "/items")
		res.ExpectStatus(t, http.StatusOK)
		if v := res.Header.Get("RateLimit"); v != "" {
			t.Errorf("a read got RateLimit %q", v)
		}
		s.Do(t, http.MethodPost, "/rpc/fast_fn", `{}`).ExpectStatus(t, http.StatusOK)
	}
	s.Do(t, http.MethodPost, "/rpc/slow_fn", `{}`).ExpectStatus(t, http.StatusOK)
	s.Do(t, http.MethodPost, "/rpc/slow_fn", `{}`).ExpectError(t, http.StatusTooManyRequests, "PGRST193")
	s.Get(t, "/rpc/slow_fn").ExpectError(t, http.StatusTooManyRequests, "PGRST193")
}

// A role's quota comes from the database (ALTER ROLE ... SET
// pgrst.rate_limit.<name>) and changes with a schema reload, without a
// restart (a value that does not parse keeps the last good one); a
// token's quota claim gives its bearer's, and one that does not parse is
// the limit's own, never an error.
func TestQuotasFromTheDatabaseAndTheToken(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "pgrest.log")
	s := pgresttest.StartWith(t, dirs(limit("per_role", "key role claim:$.sub", "rate 1/d", "burst 1000", "quota_claim $.quota")),
		pgresttest.Options{LogFile: logFile})
	premium := pgresttest.Bearer(pgresttest.Token(t, jwtSecret, jwt.MapClaims{"role": "rl_premium"}))
	policy := func(auth []string) string {
		t.Helper()
		res := s.Get(t, "/items", auth...)
		if res.Status != http.StatusOK {
			t.Fatalf("status %d (RateLimit-Policy %q, RateLimit %q): %s", res.Status,
				res.Header.Get("RateLimit-Policy"), res.Header.Get("RateLimit"), res.Body)
		}
		return res.Header.Get("RateLimit-Policy")
	}
	if got := policy(premium); got != `"per_role";q=1;w=86400` {
		t.Fatalf("before the role setting: %q", got)
	}
	setQuota := func(v string) {
		t.Helper()
		if err := execSQL(fmt.Sprintf(`alter role rl_premium set pgrst.rate_limit.per_role = '%s'; notify pgrst, 'reload schema'`, v)); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = execSQL(`alter role rl_premium reset pgrst.rate_limit.per_role`) })
	setQuota("100/s burst 1000")
	waitFor(t, func() bool { return policy(premium) == `"per_role";q=100;w=1` }, "the role's quota after the reload")
	// A value that does not parse is logged on reload and the quotas of
	// the last good load stay (the rest of the schema loads: the table
	// made with it is served).
	t.Cleanup(func() { _ = execSQL(`drop table if exists rl.after_reload`) })
	if err := execSQL(`create table rl.after_reload (id int); grant select on rl.after_reload to rl_premium`); err != nil {
		t.Fatal(err)
	}
	setQuota("lots")
	waitFor(t, func() bool { return s.Get(t, "/after_reload", premium...).Status == http.StatusOK }, "the reload")
	if got := policy(premium); got != `"per_role";q=100;w=1` {
		t.Errorf("after a reload with a bad role setting: %q, want the last good quota", got)
	}
	if log, err := os.ReadFile(logFile); err != nil {
		t.Fatal(err)
	} else if !pgresttest.LogHasLine(string(log), "error", "pgrst.rate_limit.per_role", "rl_premium") {
		t.Errorf("no error log line names rl_premium's pgrst.rate_limit.per_role:\n%s", log)
	}

	for _, tc := range []struct {
		quota any
		want  string
	}{
		{"50/m", `"per_role";q=50;w=60`},
		{"lots", `"per_role";q=1;w=86400`},
		{12, `"per_role";q=1;w=86400`},
		{map[string]any{"x": 1}, `"per_role";q=1;w=86400`},
	} {
		auth := pgresttest.Bearer(pgresttest.Token(t, jwtSecret, jwt.MapClaims{"role": fixtures.UserRole, "sub": fmt.Sprint(tc.quota), "quota": tc.quota}))
		if got := policy(auth); got != tc.want {
			t.Errorf("quota claim %v: RateLimit-Policy %q, want %q", tc.quota, got, tc.want)
		}
	}
}

func execSQL(sql string) error { return pgtest.ExecSQL(context.Background(), db.SuperDSN, sql) }

// waitFor polls cond until it holds; a schema reload takes a moment.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s in vain for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The allowed rate is held: a client that always sends faster than the
// limit (10/s, far below what any machine sends) gets, over 30 s, the
// burst plus the rate times the time it sent for, within a few percent.
// The time is measured, not assumed, so this is a property of the
// limiter, not of the machine's speed.
func TestTheAllowedRateIsHeldOver30Seconds(t *testing.T) {
	const rate, burst = 10, 5
	s := pgresttest.StartWith(t, dirs(limit("steady", "key address", fmt.Sprintf("rate %d/s", rate), fmt.Sprintf("burst %d", burst))),
		pgresttest.Options{})
	client := &http.Client{Timeout: 10 * time.Second}
	allowed, refused := 0, 0
	start := time.Now()
	var last time.Time
	for time.Since(start) < 30*time.Second {
		res, err := pgresttest.Send(client, mustRequest(t, s, "/items"))
		if err != nil {
			t.Fatal(err)
		}
		last = time.Now()
		// Still 50 times the rate or more, without taking a core.
		time.Sleep(2 * time.Millisecond)
		switch res.Status {
		case http.StatusOK:
			allowed++
		case http.StatusTooManyRequests:
			refused++
		default:
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
	}
	elapsed := last.Sub(start).Seconds()
	want := rate*elapsed + burst
	t.Logf("%d allowed, %d refused in %.2f s; rate×elapsed+burst = %.1f", allowed, refused, elapsed, want)
	if refused < allowed {
		t.Fatalf("the client sent too slowly to test the limit: %d refused, %d allowed", refused, allowed)
	}
	if diff := float64(allowed) - want; diff > 0.03*want+1 || diff < -0.03*want-1 {
		t.Errorf("%d allowed, want %.1f within 3%%", allowed, want)
	}
}

func mustRequest(t *testing.T, s *pgresttest.Server, path string) *http.Request {
	t.Helper()
	req, err := s.Request(http.MethodGet, path, "")
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// A role's pgrst.rate_limit.<name> that is not a quota is a startup
// error naming the setting and the role.
func TestAnInvalidRoleQuotaIsAStartupError(t *testing.T) {
	t.Cleanup(func() { _ = execSQL(`alter role rl_premium reset pgrst.rate_limit.per_role`) })
	for _, v := range []string{"lots", "100/s burst", "0/s", "100/s burst 0"} {
		if err := execSQL(`alter role rl_premium set pgrst.rate_limit.per_role = '` + v + `'`); err != nil {
			t.Fatal(err)
		}
		pgresttest.ExpectRefusedStart(t, dirs(limit("per_role", "key role", "rate 10/s")),
			fmt.Sprintf("rl_premium's pgrst.rate_limit.per_role %q", v), "pgrst.rate_limit.per_role", `"rl_premium"`)
	}
}

// A quota claim that is malformed in any way (a nested path that is not
// there, a claim of the wrong type, numbers past every bound) is the
// limit's own quota: the request is counted and answered, never a 4xx or
// 5xx of its own.
func TestAMalformedQuotaClaimIsTheLimitsDefault(t *testing.T) {
	s := pgresttest.StartWith(t, dirs(limit("nested", "key claim:$.sub", "rate 1/d", "burst 1000", "quota_claim $.plan.quota")),
		pgresttest.Options{})
	const def = `"nested";q=1;w=86400`
	for i, plan := range []any{
		nil,
		"basic",
		[]any{"10/s"},
		map[string]any{},
		map[string]any{"quota": nil},
		map[string]any{"quota": true},
		map[string]any{"quota": 1e300},
		map[string]any{"quota": map[string]any{"rate": "10/s"}},
		map[string]any{"quota": "99999999999999999999/s"},
		map[string]any{"quota": "1000000001/s"},
		map[string]any{"quota": "10/s burst 99999999999999999999"},
		map[string]any{"quota": "10/s burst -1"},
		map[string]any{"quota": "-10/s"},
		map[string]any{"quota": strings.Repeat("9", 5000) + "/s"},
	} {
		claims := jwt.MapClaims{"role": fixtures.UserRole, "sub": fmt.Sprint("client-", i)}
		if plan != nil {
			claims["plan"] = plan
		}
		res := s.Get(t, "/items", pgresttest.Bearer(pgresttest.Token(t, jwtSecret, claims))...)
		if res.Status != http.StatusOK || res.Header.Get("RateLimit-Policy") != def {
			t.Errorf("plan %v: status %d, RateLimit-Policy %q, want 200 and %q: %.200s",
				plan, res.Status, res.Header.Get("RateLimit-Policy"), def, res.Body)
		}
	}
	// The path does work: a well-formed nested quota is taken.
	claims := jwt.MapClaims{"role": fixtures.UserRole, "sub": "client-ok", "plan": map[string]any{"quota": "50/m"}}
	if got := s.Get(t, "/items", pgresttest.Bearer(pgresttest.Token(t, jwtSecret, claims))...).Header.Get("RateLimit-Policy"); got != `"nested";q=50;w=60` {
		t.Errorf("a well-formed nested quota: RateLimit-Policy %q", got)
	}
}

// A role's limits are pgrest's configuration, not settings of its
// sessions: a request as the role does not run with them (PostgREST
// v16.2 passes set_config only the role settings its authenticator's
// pg_settings knows, which pgrst.* names are not), while its other custom
// settings still apply.
func TestARolesLimitsAreNotSessionSettings(t *testing.T) {
	if err := execSQL(`create function rl.setting(name text) returns text language sql stable as 'select current_setting(name, true)';
		grant execute on function rl.setting(text) to rl_premium;
		alter role rl_premium set pgrst.rate_limit.per_role = '100/s';
		alter role rl_premium set pgrst.db_max_cost = '0';
		alter role rl_premium set app.note = 'kept'`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = execSQL(`drop function rl.setting(text); alter role rl_premium reset pgrst.rate_limit.per_role;
			alter role rl_premium reset pgrst.db_max_cost; alter role rl_premium reset app.note`)
	})
	s := pgresttest.StartWith(t, dirs(limit("per_role", "key role", "rate 1/d", "burst 1000")), pgresttest.Options{})
	premium := pgresttest.Bearer(pgresttest.Token(t, jwtSecret, jwt.MapClaims{"role": "rl_premium"}))
	// The limits see the role's quota once the schema cache is loaded,
	// which the first request waits for.
	s.Get(t, "/items").ExpectStatus(t, http.StatusOK)
	for name, want := range map[string]string{
		"pgrst.rate_limit.per_role": `null`,
		"pgrst.db_max_cost":         `null`,
		"app.note":                  `"kept"`,
	} {
		res := s.Get(t, "/rpc/setting?name="+name, premium...)
		res.Expect(t, http.StatusOK, want, map[string]string{"RateLimit-Policy": `"per_role";q=100;w=1`})
	}
}
