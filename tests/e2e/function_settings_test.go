package e2e

import (
	"net/http"
	"testing"
)

// A function's SET clauses apply to its call, statement_timeout included:
// PostgreSQL would apply it inside the function only, too late to cut the
// statement running it, so pgrest sets them for the transaction first.
func TestFunctionSettingsApplyToTheCall(t *testing.T) {
	sql(t, `create function api.fs_slow() returns int language sql
	          set statement_timeout = '150ms' as 'select 1 from pg_sleep(2)';
	        create function api.fs_timeout() returns text language sql
	          set statement_timeout = '4s' as $$ select current_setting('statement_timeout') $$;
	        grant execute on function api.fs_slow(), api.fs_timeout() to web_anon;`)
	t.Cleanup(func() { sql(t, "drop function api.fs_slow(); drop function api.fs_timeout()") })
	s := startServer(t)
	t.Run("a statement_timeout set on the function cuts the call", func(t *testing.T) {
		// No other timeout applies: without the function's, the 2 s call
		// would end with a 200.
		s.do(t, http.MethodPost, "/rpc/fs_slow", "{}").expectError(t, http.StatusInternalServerError, "57014")
	})
	t.Run("the setting is in force during the call", func(t *testing.T) {
		res := s.get(t, "/rpc/fs_timeout")
		if res.Status != 200 || string(res.Body) != `"4s"` {
			t.Fatalf("got %d %s", res.Status, res.Body)
		}
	})
}
