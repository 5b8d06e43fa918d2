package e2e

import (
	"net/http"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// The settings of the role a request switches to (ALTER ROLE ... SET)
// apply to its transaction, as PostgreSQL would apply them at login and
// PostgREST 11.1+ does per request: a role's setting for this database
// wins over its general one, and other roles keep theirs.
func TestRoleSettingsApplyToTheRolesRequests(t *testing.T) {
	sql(t, `create role rs_slow nologin;
	        create role rs_other nologin;
	        grant rs_slow, rs_other to authenticator;
	        grant usage on schema api to rs_slow, rs_other;
	        grant execute on function api.auth_sleep(double precision), api.auth_setting(text) to rs_slow, rs_other;
	        alter role rs_slow set statement_timeout = '1h';
	        alter role rs_slow set app.rs_note = 'general';
	        alter role rs_slow set log_min_duration_statement = '1s';
	        do $$ begin
	          execute format('alter role rs_slow in database %I set statement_timeout = %L', current_database(), '200ms');
	        end $$;`)
	t.Cleanup(func() {
		sql(t, `drop owned by rs_slow, rs_other; drop role rs_slow; drop role rs_other;`)
	})
	s := startServer(t)
	slow := bearer(token(t, jwt.MapClaims{"role": "rs_slow"}))
	other := bearer(token(t, jwt.MapClaims{"role": "rs_other"}))

	t.Run("the role's statement_timeout cuts a slow call with 57014", func(t *testing.T) {
		// Of the role's settings only the database's (200ms) is shorter
		// than the call: without it, the call would end with a 200.
		s.do(t, http.MethodPost, "/rpc/auth_sleep", `{"seconds": 5}`, slow...).
			expectError(t, http.StatusInternalServerError, "57014")
	})
	t.Run("the database-specific setting wins and the others are in force", func(t *testing.T) {
		if got := authSetting(t, s, "statement_timeout", slow...); got != "200ms" {
			t.Errorf("statement_timeout = %v, want 200ms", got)
		}
		if got := authSetting(t, s, "app.rs_note", slow...); got != "general" {
			t.Errorf("app.rs_note = %v, want general", got)
		}
	})
	t.Run("another role is not affected", func(t *testing.T) {
		if got := authSetting(t, s, "statement_timeout", other...); got != "0" {
			t.Errorf("statement_timeout = %v for rs_other, want the default 0", got)
		}
		// A custom setting once set on a connection reads as '' after
		// its transaction: absent or empty both mean not rs_slow's.
		if got := authSetting(t, s, "app.rs_note", other...); got != nil && got != "" {
			t.Errorf("app.rs_note = %v for rs_other, want none", got)
		}
		res := s.do(t, http.MethodPost, "/rpc/auth_sleep", `{"seconds": 0.5}`, other...)
		if res.Status != http.StatusOK {
			t.Fatalf("rs_other's 0.5 s call: %d %s", res.Status, res.Body)
		}
	})
	t.Run("the settings do not outlive the transaction on the connection", func(t *testing.T) {
		// db_pool 1: both requests share one connection.
		one := startServer(t, "db_pool 1")
		if got := authSetting(t, one, "statement_timeout", slow...); got != "200ms" {
			t.Fatalf("statement_timeout = %v, want 200ms", got)
		}
		if got := authSetting(t, one, "statement_timeout", other...); got != "0" {
			t.Errorf("statement_timeout = %v on the next request of rs_other, want 0", got)
		}
	})
}
