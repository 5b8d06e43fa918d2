package realtimesocket

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// leakSQL is a policy function that leaves, at session level, what
// PostgreSQL keeps past a transaction (a custom setting, an advisory lock,
// a sequence's currval, a temporary table, LISTEN, and last the role), and
// the policies that call it (on realtime.messages for the topics "leak-*",
// and on api.rt_leak, published). What a REST call sees of its connection
// is api.session_state (fixtures.SessionStateSQL).
const leakSQL = `
create sequence if not exists api.rt_leak_seq;
grant usage on sequence api.rt_leak_seq to webuser;
create or replace function api.rt_leave_session_state() returns boolean language plpgsql volatile as $$
begin
  perform pg_catalog.set_config('app.leak', 'left-by-a-policy', false);
  perform pg_catalog.pg_try_advisory_lock(4343);
  perform pg_catalog.nextval('api.rt_leak_seq');
  create temp table if not exists rt_leftover (x int);
  listen rt_leftover;
  perform pg_catalog.set_config('role', 'webuser', false);
  return true;
end
$$;
drop policy if exists rt_leak_read on realtime.messages;
create policy rt_leak_read on realtime.messages for select to webuser
  using (realtime.topic() like 'leak-%' and api.rt_leave_session_state());
create table if not exists api.rt_leak (id bigint primary key, title text not null);
alter table api.rt_leak enable row level security;
grant select on api.rt_leak to webuser;
drop policy if exists rt_leak_all on api.rt_leak;
create policy rt_leak_all on api.rt_leak for select to webuser using (api.rt_leave_session_state());
do $$ begin
  if not exists (select from pg_publication_tables where pubname = 'pgrest_realtime' and tablename = 'rt_leak') then
    alter publication pgrest_realtime add table api.rt_leak;
  end if;
end $$;
`

// cleanSession is what a request sees of a connection nobody left
// anything on, of what api.rt_leave_session_state leaves.
var cleanSession = map[string]any{
	"app.leak": nil, "advisory_locks": float64(0), "lastval": nil, "temp_table": false, "listening": float64(0),
}

// restSessionState is what u2's REST call sees of its connection.
func restSessionState(t *testing.T, s *pgresttest.Server) map[string]any {
	t.Helper()
	res := s.Do(t, "POST", "/rpc/session_state", `{"setting":"app.leak","temp_table":"rt_leftover"}`,
		pgresttest.Bearer(userToken(t, "u2"))...)
	res.ExpectStatus(t, 200)
	var state map[string]any
	if err := json.Unmarshal(res.Body, &state); err != nil {
		t.Fatalf("api.session_state: %v: %s", err, res.Body)
	}
	return state
}

// expectCleanSession checks the state cleanSession names; the rest of
// what api.session_state shows (settings, cursors) the policy function
// does not touch.
func expectCleanSession(t *testing.T, s *pgresttest.Server, after string) {
	t.Helper()
	got := restSessionState(t, s)
	for name, want := range cleanSession {
		if !reflect.DeepEqual(got[name], want) {
			t.Errorf("after %s, another user's REST call sees %s = %v, want %v", after, name, got[name], want)
		}
	}
}

// The private channel check runs on the REST API's pool as the joining
// role: what a policy on realtime.messages leaves at session level (an
// advisory lock, a sequence's currval outlive its rolled-back
// transaction) must not reach the next REST request on that connection.
func TestPrivateChannelCheckLeavesNothingOnTheConnection(t *testing.T) {
	execSQL(t, leakSQL)
	// One connection: the REST call runs on the one the check used.
	s := pgresttest.StartWith(t, directives("db_pool 1"), pgresttest.Options{})
	expectCleanSession(t, s, "nothing")

	u1 := dial(t, s, userToken(t, "u1"), "2.0.0")
	u1.join("realtime:leak-1", config(false, false, "", false, true))
	expectCleanSession(t, s, "a private join")

	// The send check (an INSERT of a probe row) likewise.
	ref := u1.join("realtime:leak-2", config(false, true, "", false, true))
	u1.send(ref, "realtime:leak-2", "broadcast", map[string]any{"type": "broadcast", "event": "e"})
	hb := u1.send("", "phoenix", "heartbeat", map[string]any{})
	u1.expectReply(hb)
	expectCleanSession(t, s, "a private send")
}

// The postgres_changes visibility check runs the subscribed table's
// policies as the subscriber, in a transaction that commits: what they
// leave at session level, the role included, must reach neither the next
// REST request nor the next realtime check on that connection.
func TestChangesVisibilityCheckLeavesNothingOnTheConnection(t *testing.T) {
	execSQL(t, leakSQL)
	execSQL(t, `truncate api.rt_leak`)
	s := pgresttest.StartWith(t, directives("db_pool 1", "realtime_publication pgrest_realtime",
		"realtime_node_name session_reset_test"), pgresttest.Options{})
	const topic = "realtime:leak-changes"
	c := dial(t, s, userToken(t, "u1"), "2.0.0")
	c.join(topic, changesConfig(map[string]any{"event": "INSERT", "schema": "api", "table": "rt_leak"}))
	if sys := c.expect(topic, "system"); sys.Payload["status"] != "ok" {
		t.Fatalf("subscription: %v", sys.Payload)
	}
	execSQL(t, `insert into api.rt_leak values (1, 'seen')`)
	m := c.expect(topic, "postgres_changes")
	if data, _ := m.Payload["data"].(map[string]any); data["type"] != "INSERT" {
		t.Fatalf("got %v", m.Payload)
	}

	// A role left by the check would run the next private join's probe
	// (which only the authenticator may call) as webuser, and fail it.
	u1 := dial(t, s, userToken(t, "u1"), "2.0.0")
	if status, resp, _ := u1.tryJoin("realtime:room-u1", config(false, false, "", false, true)); status != "ok" {
		t.Errorf("a private join after the visibility check: %s %v", status, resp)
	}
	expectCleanSession(t, s, "a visibility check")
}
