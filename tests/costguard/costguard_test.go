package costguard

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// asUser are the directives of a server whose anonymous requests run as
// webuser, which has no limit of its own.
const asUser = "db_anon_role webuser"

// expectRefused checks the 400 PGRST195 and that its details name the
// limit.
func expectRefused(t *testing.T, r *pgresttest.Response, limit string) {
	t.Helper()
	e := r.ExpectError(t, http.StatusBadRequest, "PGRST195")
	if e["message"] != "The query's estimated cost exceeds the limit" {
		t.Errorf("message = %v", e["message"])
	}
	details, _ := e["details"].(string)
	if !strings.Contains(details, "the limit is "+limit+".") || !strings.Contains(details, "estimates a cost of ") {
		t.Errorf("details = %q, want the cost and the limit %s", details, limit)
	}
	if e["hint"] == nil {
		t.Error("no hint")
	}
}

func TestCostGuardRefusesACrossJoinAndLetsAnIndexedLookupThrough(t *testing.T) {
	s := pgresttest.Start(t, directives())

	expectRefused(t, s.Get(t, "/pairs"), "1000")
	// A sequential scan of 100,000 rows costs about 1,700.
	expectRefused(t, s.Get(t, "/big_a?v=eq.5&order=id"), "1000")

	s.Get(t, "/big_a?id=eq.5").Expect(t, http.StatusOK, `[{"id":5,"v":5}]`, nil)
	// The same filter on an unindexed column, as a role without a limit.
	// Unguarded, the plan of this read is parallel: its rows still follow
	// the first row that counts them (sqlgen's writeStreamed).
	s = pgresttest.Start(t, directives(asUser))
	s.Get(t, "/big_a?v=eq.5&order=id").Expect(t, http.StatusOK, `[{"id":5,"v":5}]`, nil)
}

func TestCostGuardDefaultAppliesToRolesWithoutTheirOwn(t *testing.T) {
	s := pgresttest.Start(t, directives("db_max_cost 500", asUser))
	expectRefused(t, s.Get(t, "/big_a?v=eq.5&order=id"), "500")
	s.Get(t, "/big_a?id=eq.7").Expect(t, http.StatusOK, `[{"id":7,"v":7}]`, nil)
	// web_anon's own 1000 wins over the default.
	s = pgresttest.Start(t, directives("db_max_cost 500"))
	expectRefused(t, s.Get(t, "/big_a?v=eq.5&order=id"), "1000")
}

func TestCostGuardRoleSettingTakesEffectOnReload(t *testing.T) {
	s := pgresttest.Start(t, directives(asUser))
	s.Get(t, "/big_a?v=eq.5&order=id").ExpectStatus(t, http.StatusOK)

	pgtest.Exec(t, superDSN, `alter role webuser set pgrst.db_max_cost = '100'`)
	t.Cleanup(func() { pgtest.Exec(t, superDSN, `alter role webuser reset pgrst.db_max_cost`) })
	pgtest.Exec(t, superDSN, `notify pgrst, 'reload schema'`)
	r := waitForStatus(t, s, "/big_a?v=eq.5&order=id", http.StatusBadRequest)
	expectRefused(t, r, "100")
}

// waitForStatus asks for path until the answer has status (a reload is
// asynchronous), and returns that answer.
func waitForStatus(t *testing.T, s *pgresttest.Server, path string, status int) *pgresttest.Response {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := s.Get(t, path)
		if r.Status == status || time.Now().After(deadline) {
			return r
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestCostGuardRefusedCallNeverRuns(t *testing.T) {
	s := pgresttest.Start(t, directives())
	pgtest.Exec(t, superDSN, `truncate api.effects; select pg_stat_statements_reset()`)

	// COST 1000000 × cpu_operator_cost 0.0025 = 2,500 for the call.
	expectRefused(t, s.Do(t, http.MethodPost, "/rpc/side_effect", `{}`), "1000")
	if n := pgresttest.SQLInt(t, superDSN, `select count(*) from api.effects`); n != 0 {
		t.Errorf("the refused call left %d rows", n)
	}
	const ran = `select count(*) from pg_stat_statements
	             where query like '%side_effect%' and query not ilike 'explain%'`
	if n := pgresttest.SQLInt(t, superDSN, ran); n != 0 {
		t.Errorf("pg_stat_statements shows the refused statement %d times", n)
	}
	const explained = `select count(*) from pg_stat_statements
	                   where query like '%side_effect%' and query ilike 'explain%'`
	if n := pgresttest.SQLInt(t, superDSN, explained); n == 0 {
		t.Error("pg_stat_statements shows no EXPLAIN of the call: the statements are not tracked")
	}

	// The same call as a role without a limit runs, and shows: the checks
	// above could fail.
	s = pgresttest.Start(t, directives(asUser))
	s.Do(t, http.MethodPost, "/rpc/side_effect", `{}`).ExpectStatus(t, http.StatusOK)
	if n := pgresttest.SQLInt(t, superDSN, `select count(*) from api.effects`); n != 1 {
		t.Errorf("the allowed call left %d rows, want 1", n)
	}
	if n := pgresttest.SQLInt(t, superDSN, ran); n == 0 {
		t.Error("pg_stat_statements does not show the allowed call")
	}
}

func TestCostGuardRefusedWriteLeavesNothing(t *testing.T) {
	s := pgresttest.Start(t, directives())
	pgtest.Exec(t, superDSN, `truncate api.effects`)
	// An insert from the body is cheap and goes through.
	s.Do(t, http.MethodPost, "/effects", `{"id": 1}`).ExpectStatus(t, http.StatusCreated)
	// A DELETE of every row scans the table: over a limit of 1.
	s = pgresttest.Start(t, directives("db_max_cost 1", asUser))
	expectRefused(t, s.Do(t, http.MethodDelete, "/effects?id=gt.0", ""), "1")
	if n := pgresttest.SQLInt(t, superDSN, `select count(*) from api.effects`); n != 1 {
		t.Errorf("the refused delete left %d rows, want 1", n)
	}
}

func TestCostGuardPlanRequestStillWorks(t *testing.T) {
	s := pgresttest.Start(t, directives())
	r := s.Get(t, "/pairs", "Accept", "application/vnd.pgrst.plan+json")
	r.ExpectStatus(t, http.StatusOK)
	if !strings.Contains(string(r.Body), "Total Cost") {
		t.Errorf("plan body = %.200s", r.Body)
	}
}

func TestCostGuardInvalidLimitIsAStartupError(t *testing.T) {
	for _, v := range []string{"-1", "lots", "4294967296"} {
		pgresttest.ExpectRefusedStart(t, directives("db_max_cost "+v), "db_max_cost "+v, "db_max_cost")
	}
}

// Refusals are counted by role in caddy_pgrest_cost_guard_refused_total
// and named in the access log by their code; an allowed request is neither.
func TestCostGuardRefusalsAreCountedAndLogged(t *testing.T) {
	sites, metricsURL := pgresttest.MetricsSite(t)
	logFile := filepath.Join(t.TempDir(), "access.log")
	s := pgresttest.StartWith(t, directives(), pgresttest.Options{Sites: sites, LogFile: logFile})
	const name = `caddy_pgrest_cost_guard_refused_total{role="web_anon"}`
	before := pgresttest.Metric(t, metricsURL, name)

	expectRefused(t, s.Get(t, "/pairs"), "1000")
	expectRefused(t, s.Get(t, "/big_a?v=eq.5&order=id"), "1000")
	s.Get(t, "/big_a?id=eq.5").Expect(t, http.StatusOK, `[{"id":5,"v":5}]`, nil)

	if got := pgresttest.Metric(t, metricsURL, name) - before; got != 2 {
		t.Errorf("%s rose by %v, want 2", name, got)
	}
	var logged int
	deadline := time.Now().Add(10 * time.Second)
	for {
		text, err := os.ReadFile(logFile)
		if err != nil {
			t.Fatal(err)
		}
		logged = strings.Count(string(text), `"pgrest_code":"PGRST195"`)
		if logged >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if logged != 2 {
		t.Errorf("%d access log lines carry pgrest_code PGRST195, want 2", logged)
	}
}

// A role's pgrst.db_max_cost that is not a valid limit is a startup
// error naming the setting and the role, as an invalid db_max_cost is:
// pgrest does not start with that role unguarded, nor retry a schema
// load that cannot succeed.
func TestCostGuardInvalidRoleSettingIsAStartupError(t *testing.T) {
	t.Cleanup(func() { pgtest.Exec(t, superDSN, `alter role webuser reset pgrst.db_max_cost`) })
	for _, v := range []string{"lots", "-1", "4294967296"} {
		pgtest.Exec(t, superDSN, `alter role webuser set pgrst.db_max_cost = '`+v+`'`)
		pgresttest.ExpectRefusedStart(t, directives(), "webuser's pgrst.db_max_cost "+v, "pgrst.db_max_cost", `"webuser"`)
	}
}

// On a schema reload, a role's pgrst.db_max_cost that is not valid is
// logged naming the setting and the role, and the limits of the last good
// load stay in force; the rest of the schema loads.
func TestCostGuardInvalidRoleSettingOnReloadKeepsTheLastLimits(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "pgrest.log")
	s := pgresttest.StartWith(t, directives(), pgresttest.Options{LogFile: logFile})
	expectRefused(t, s.Get(t, "/pairs"), "1000")

	t.Cleanup(func() {
		pgtest.Exec(t, superDSN, `alter role web_anon set pgrst.db_max_cost = '1000'; drop table if exists api.after_reload`)
	})
	pgtest.Exec(t, superDSN, `alter role web_anon set pgrst.db_max_cost = 'lots';
		create table api.after_reload (id int); grant select on api.after_reload to web_anon;
		notify pgrst, 'reload schema'`)
	waitForStatus(t, s, "/after_reload", http.StatusOK).Expect(t, http.StatusOK, `[]`, nil)
	expectRefused(t, s.Get(t, "/pairs"), "1000")
	log, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if !pgresttest.LogHasLine(string(log), "error", "pgrst.db_max_cost", "web_anon") {
		t.Errorf("no error log line names web_anon's pgrst.db_max_cost:\n%s", log)
	}
}
