// Package faults injects faults into a running pgrest the way production
// does and checks what it answers: database restarts under write load,
// pool exhaustion, clients hanging up mid-request, and a short soak. The
// tests run against a throwaway cluster of their own (tests/pgtest), which
// they restart; each prints its figures with t.Logf.
package faults

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// db is the test database, shared by every test of this package.
var db *pgresttest.DB

// defaults is the handler configuration the tests start from; TestMain
// adds db_uri, the authenticator's URL.
var defaults = map[string]string{"db_schemas": "api", "db_anon_role": "web_anon"}

func TestMain(m *testing.M) {
	db = pgresttest.MustSetUp("pgrest_faults", pgresttest.Files("testdata/*.sql"),
		// The server logs every session it opens, so the tests can count
		// the connections pgrest makes (pg_stat_database's counters are
		// flushed late). ALTER SYSTEM refuses to run in a transaction, so
		// it goes alone.
		pgresttest.SQL("log_connections", "alter system set log_connections = on"),
		// The test clusters trade durability for speed; a crash
		// (immediate shutdown) would then lose the last commits, which
		// is PostgreSQL's doing, not pgrest's. A commit here is durable
		// once acknowledged, as in production.
		pgresttest.SQL("synchronous_commit", "alter system set synchronous_commit = on"),
		pgresttest.SQL("reload", "select pg_reload_conf()"))
	defaults["db_uri"] = db.AuthenticatorDSN()
	db.Run(m)
}

// startServer serves pgrest with defaults changed by lines (see
// pgresttest.Start); it stops when the test ends.
func startServer(t testing.TB, lines ...string) *pgresttest.Server {
	t.Helper()
	return pgresttest.Start(t, defaults, lines...)
}

// sqlInt runs a query returning one integer as the superuser.
func sqlInt(t testing.TB, query string, args ...any) int64 {
	t.Helper()
	return pgresttest.SQLInt(t, db.SuperDSN, query, args...)
}

// sessionCounter counts the sessions the authenticator opens, from the
// server's log (log_connections): a connection pgrest opens is one
// "connection authorized" line; a cancel request is none.
type sessionCounter struct {
	path   string
	offset int64
}

// countSessions starts counting at the end of the log as it is now.
func countSessions(t testing.TB) *sessionCounter {
	t.Helper()
	path := db.Cluster.LogFile()
	if path == "" {
		t.Skip("counting sessions needs the log of a cluster of the tests; PGREST_TEST_DSN names another server")
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return &sessionCounter{path: path, offset: st.Size()}
}

// Opened is the number of sessions of the authenticator opened since
// countSessions.
func (c *sessionCounter) Opened(t testing.TB) int {
	t.Helper()
	f, err := os.Open(c.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(c.offset, 0); err != nil {
		t.Fatal(err)
	}
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		if line := sc.Text(); strings.Contains(line, "connection authorized: user=authenticator ") {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// sleepCall is in the text of the statement pgrest runs for a call of
// api.sleep, as pg_stat_activity shows it.
const sleepCall = `"api"."sleep"(`

// authenticatorBackends counts the authenticator's backends in state
// (pg_stat_activity), optionally only those whose query contains text.
func authenticatorBackends(t testing.TB, state, text string) int64 {
	t.Helper()
	return sqlInt(t, `select count(*) from pg_stat_activity
		where usename = 'authenticator' and datname = current_database()
		  and ($1 = '' or state = $1) and query like '%' || $2 || '%'`, state, text)
}

// waitFor polls cond every 50 ms until it holds or timeout passes, and
// says whether it held.
func waitFor(timeout time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(timeout); ; time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// ready waits until the server answers a read with 200, so that the
// schema cache is loaded before the faults start.
func ready(t testing.TB, s *pgresttest.Server) {
	t.Helper()
	ok := waitFor(time.Minute, func() bool {
		res, err := s.Try(nil, "GET", "/writes?limit=1", "")
		return err == nil && res.Status == 200
	})
	if !ok {
		t.Fatal("the server did not answer 200 within a minute")
	}
}
