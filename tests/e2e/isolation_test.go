package e2e

import (
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// Nothing of one request may reach the next one on the same connection.
// Each test runs with a pool of one connection, so every request is
// served by the same database session.

// membersOnly grants the members-only functions to webuser alone again:
// other tests of the package grant every function of api to web_anon.
func membersOnly(t *testing.T) {
	t.Helper()
	sql(t, `revoke execute on function api.members_only(), api.members_only_echo(integer) from public, web_anon;
	        grant execute on function api.members_only(), api.members_only_echo(integer) to webuser`)
}

// A simple SQL function is inlined into a prepared statement's plan after
// PostgreSQL checked EXECUTE for the planning role. Reusing that plan for
// another role would run the function without the check.
func TestIsolationAPlanMadeForOneRoleIsNotReusedByAnother(t *testing.T) {
	membersOnly(t)
	s := startServer(t, "db_pool 1")
	member := bearer(token(t, jwt.MapClaims{"role": "webuser"}))
	for round := 0; round < 3; round++ {
		res := s.get(t, "/rpc/members_only", member...)
		res.ExpectStatus(t, 200)
		if got := string(res.Body); got != `"welcome"` {
			t.Fatalf("round %d: webuser got %s, want \"welcome\"", round, got)
		}
		// Anonymous, on the connection where webuser's plan is cached.
		s.get(t, "/rpc/members_only").expectError(t, 401, "42501")
	}
	// And the other way round: a plan made (and refused) for the
	// anonymous role does not stop the member.
	s.get(t, "/rpc/members_only").expectError(t, 401, "42501")
	s.get(t, "/rpc/members_only", member...).ExpectStatus(t, 200)
}

// The same holds for a statement with parameters, whose generic plan
// PostgreSQL may adopt after five runs.
func TestIsolationAGenericPlanWithParametersIsNotReusedByAnotherRole(t *testing.T) {
	membersOnly(t)
	s := startServer(t, "db_pool 1")
	member := bearer(token(t, jwt.MapClaims{"role": "webuser"}))
	for i := 0; i < 8; i++ {
		s.get(t, "/rpc/members_only_echo?n=7", member...).ExpectStatus(t, 200)
	}
	s.get(t, "/rpc/members_only_echo?n=7").expectError(t, 401, "42501")
}

// A function may set response.status and response.headers at session
// level; the next request, of another user, must not answer with them.
func TestIsolationResponseSettingsLeftAtSessionLevelDoNotLeak(t *testing.T) {
	s := startServer(t, "db_pool 1")
	member := bearer(token(t, jwt.MapClaims{"role": "webuser"}))
	res := s.do(t, "POST", "/rpc/leave_response_settings", "{}", member...)
	if res.Status != 418 || res.Header.Get("Set-Cookie") != "leaked=from-webuser" {
		t.Fatalf("the setting request itself: status %d, Set-Cookie %q; want 418 and its cookie",
			res.Status, res.Header.Get("Set-Cookie"))
	}
	for _, who := range []struct {
		name    string
		headers []string
	}{{"anonymous", nil}, {"webuser", member}} {
		res := s.get(t, "/rpc/everyone", who.headers...)
		if res.Status != 200 || res.Header.Get("Set-Cookie") != "" {
			t.Errorf("%s after it: status %d, Set-Cookie %q; want 200 and none",
				who.name, res.Status, res.Header.Get("Set-Cookie"))
		}
	}
}
