package reload

import (
	"net/http"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// When a schema reload retires pgrest's prepared statements, statements
// pgrest did not make stay: a function's own PREPARE survives, where
// DEALLOCATE ALL dropped it.
func TestStatementEvictionKeepsOtherStatements(t *testing.T) {
	dsn := testDatabase(t, "pgrest_faults_reload_eviction")
	pgtest.Exec(t, dsn, `
		create function api.prepare_mine() returns int language plpgsql as $$
		begin
			if not exists (select 1 from pg_prepared_statements where name = 'mine') then
				execute 'prepare mine as select 1';
			end if;
			return 1;
		end $$;
		create function api.has_mine() returns boolean stable language sql as
			$$ select exists (select 1 from pg_prepared_statements where name = 'mine') $$;`)
	// One connection, so every request sees the function's statement.
	s := startServer(t, dsn, "db_pool 1")
	s.Do(t, http.MethodPost, "/rpc/prepare_mine", "{}").ExpectStatus(t, http.StatusOK)
	if res := s.Get(t, "/rpc/has_mine"); string(res.Body) != "true" {
		t.Fatalf("after prepare_mine, has_mine is %d %s, want true", res.Status, res.Body)
	}
	waitForListener(t, dsn)

	pgtest.Exec(t, dsn, `create table api.after_reload (id int); insert into api.after_reload values (1);`)
	pgtest.Exec(t, dsn, `notify pgrst, 'reload schema'`)
	deadline := time.Now().Add(reloadTimeout)
	for s.Get(t, "/after_reload").Status != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatalf("the schema cache did not reload within %s", reloadTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// That request ran with the new generation: pgrest's statements of the
	// old one were deallocated before it.
	if res := s.Get(t, "/rpc/has_mine"); string(res.Body) != "true" {
		t.Errorf("after a schema reload, has_mine is %d %s, want true: pgrest dropped a statement it did not make", res.Status, res.Body)
	}
}
