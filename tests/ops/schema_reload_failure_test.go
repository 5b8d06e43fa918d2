package ops

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// TestAdminReadyIncludesSchemaCacheState mirrors what PostgREST v16
// changed in its test_admin_ready_includes_schema_cache_state: once a
// schema cache has loaded, a reload that fails leaves it serving
// requests ("best effort", where PostgREST 14 answered 503), until a
// reload succeeds. The reload fails here because the authenticator may no
// longer read pg_proc, which the cache's queries read and requests do
// not. pgrest's /ready stays 200 meanwhile, where PostgREST's is 503: the
// node still serves, and taking it out of its load balancer would only
// refuse the requests it can answer (README, Health).
func TestAdminReadyIncludesSchemaCacheState(t *testing.T) {
	s := startReadySite(t)
	read := func(path string) (int, string) { return get(t, http.MethodGet, s.API+path) }
	if code, body := read("/clients?select=id&id=eq.1"); code != http.StatusOK || body != `[{"id":1}]` {
		t.Fatalf("before: GET /clients = %d %s", code, body)
	}
	// A notification sent before pgrest listens would be lost.
	eventually(t, 10*time.Second, "pgrest does not listen for notifications", func() bool {
		return pgresttest.SQLInt(t, db.SuperDSN, `select count(*) from pg_stat_activity
			where datname = current_database() and application_name = 'pgrest' and query ilike 'listen %'`) > 0
	})
	failed := func() int { return len(logLines(t, s.Log, "loading the schema cache")) }
	superExec(t, `create table api.made_after (id int); insert into api.made_after values (7);
	              grant select on api.made_after to web_anon;
	              revoke select on pg_catalog.pg_proc from public`)
	t.Cleanup(func() {
		superExec(t, `grant select on pg_catalog.pg_proc to public; drop table if exists api.made_after`)
	})
	superExec(t, `notify pgrst, 'reload schema'`)
	eventually(t, 10*time.Second, "the reload did not fail", func() bool { return failed() > 0 })
	if line := logLines(t, s.Log, "loading the schema cache")[0]; !strings.Contains(fmt.Sprint(line["error"]), "pg_proc") {
		t.Errorf("the reload failed for another reason: %v", line)
	}

	t.Run("a request is answered from the last schema cache", func(t *testing.T) {
		if code, body := read("/clients?select=id&id=eq.1"); code != http.StatusOK || body != `[{"id":1}]` {
			t.Errorf("GET /clients = %d %s, want 200 and the row", code, body)
		}
		// The cache is the one loaded before the table was made.
		if code, body := read("/made_after"); code != http.StatusNotFound || !strings.Contains(body, "PGRST205") {
			t.Errorf("GET /made_after = %d %s, want 404 PGRST205 from the last cache", code, body)
		}
	})
	t.Run("pgrest stays ready while the last cache serves", func(t *testing.T) {
		if code, _ := get(t, http.MethodGet, s.Health+"/ready"); code != http.StatusOK {
			t.Errorf("/ready = %d, want 200", code)
		}
	})
	t.Run("the failed reload is retried until it loads", func(t *testing.T) {
		superExec(t, `grant select on pg_catalog.pg_proc to public`)
		eventually(t, 10*time.Second, "the table made after the last cache never appeared", func() bool {
			code, _ := read("/made_after")
			return code == http.StatusOK
		})
	})
}
