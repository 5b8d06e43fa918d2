package security

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// startOneConnection serves the fixture with a pool of one connection,
// so that every request runs on the connection the one before it used.
func startOneConnection(t *testing.T) *pgresttest.Server {
	t.Helper()
	return pgresttest.Start(t, map[string]string{
		"db_uri":       db.AuthenticatorDSN(),
		"db_schemas":   "api",
		"db_anon_role": "web_anon",
		"jwt_secret":   secret,
		"db_pool":      "1",
	})
}

// sessionState is what webuser's call of api.session_state sees of its
// connection, with the custom setting and the temporary table that
// api.leave_session_state makes.
func sessionState(t *testing.T, s *pgresttest.Server, user []string) map[string]any {
	t.Helper()
	res := s.Do(t, "POST", "/rpc/session_state", `{"setting":"app.tenant_id","temp_table":"leftover_temp"}`, user...)
	res.ExpectStatus(t, 200)
	var state map[string]any
	if err := json.Unmarshal(res.Body, &state); err != nil {
		t.Fatalf("api.session_state: %v: %s", err, res.Body)
	}
	return state
}

// A function the anonymous role calls sets, at session level, every kind
// of state PostgreSQL keeps past a transaction; webuser's next request on
// the same connection sees none of it.
func TestNothingAFunctionLeavesOnTheConnectionReachesTheNextRole(t *testing.T) {
	s := startOneConnection(t)
	user := pgresttest.Bearer(userToken(t))
	before := sessionState(t, s, user)

	s.Do(t, "POST", "/rpc/leave_session_state", "{}").Expect(t, 200, `"left"`, nil)

	after := sessionState(t, s, user)
	if !reflect.DeepEqual(after, before) {
		for name, was := range before {
			if now := after[name]; !reflect.DeepEqual(now, was) {
				t.Errorf("%s: %v before the anonymous call, %v after it", name, was, now)
			}
		}
	}
}

// The first case: a statement timeout a function sets at session
// level cancels nobody else's statement.
func TestAStatementTimeoutAFunctionSetsCancelsNobodyElse(t *testing.T) {
	s := startOneConnection(t)
	user := pgresttest.Bearer(userToken(t))
	for range 3 {
		// The anonymous call's own end may or may not meet its 5 ms.
		s.Do(t, "POST", "/rpc/leave_short_statement_timeout", "{}")
		s.Do(t, "POST", "/rpc/take_a_while", "{}", user...).Expect(t, 200, `"done"`, nil)
	}
}
