package realtimesocket

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// changesConfig is a join's config with postgres_changes specs.
func changesConfig(specs ...map[string]any) map[string]any {
	c := config(false, false, "", false, false)
	list := make([]any, len(specs))
	for i, s := range specs {
		list[i] = s
	}
	c["postgres_changes"] = list
	return c
}

// TestPostgresChanges serves the change feed (realtime/changes) through
// the socket: the join's reply lists the bound specs, "Subscribed to
// PostgreSQL" follows, and each user hears only of the rows row-level
// security shows them, written through the REST API or in SQL.
func TestPostgresChanges(t *testing.T) {
	s := pgresttest.StartWith(t, directives("realtime_publication pgrest_realtime", "realtime_node_name changes_test"), pgresttest.Options{})
	const topic = "realtime:todos"
	spec := map[string]any{"event": "*", "schema": "api", "table": "rt_todos"}
	u1 := dial(t, s, userToken(t, "u1"), "2.0.0")
	u2 := dial(t, s, userToken(t, "u2"), "1.0.0")
	for _, c := range []*client{u1, u2} {
		status, resp, _ := c.tryJoin(topic, changesConfig(spec))
		list, _ := resp["postgres_changes"].([]any)
		if status != "ok" || len(list) != 1 {
			t.Fatalf("join: %s %v", status, resp)
		}
		b, _ := list[0].(map[string]any)
		if b["id"] == nil || b["event"] != "*" || b["schema"] != "api" || b["table"] != "rt_todos" {
			t.Errorf("bound spec %v", b)
		}
		sys := c.expect(topic, "system")
		if sys.Payload["message"] != "Subscribed to PostgreSQL" || sys.Payload["extension"] != "postgres_changes" || sys.Payload["status"] != "ok" {
			t.Errorf("system %v", sys.Payload)
		}
	}

	// Through psql's path: SQL as a superuser, for both users.
	execSQL(t, `insert into api.rt_todos (owner, title) values ('u2', 'u2 by sql'), ('u1', 'u1 by sql')`)
	// Through the REST API, as u1.
	r := s.Do(t, "POST", "/rt_todos", `{"title":"u1 by rest"}`, pgresttest.Bearer(userToken(t, "u1"))...)
	r.ExpectStatus(t, 201)

	for _, want := range []string{"u1 by sql", "u1 by rest"} {
		m := u1.expect(topic, "postgres_changes")
		data, _ := m.Payload["data"].(map[string]any)
		rec, _ := data["record"].(map[string]any)
		ids, _ := m.Payload["ids"].([]any)
		if data["type"] != "INSERT" || rec["title"] != want || rec["owner"] != "u1" || len(ids) != 1 {
			t.Errorf("u1 got %v, want the insert of %q", m.Payload, want)
		}
	}
	m := u2.expect(topic, "postgres_changes")
	data, _ := m.Payload["data"].(map[string]any)
	if rec, _ := data["record"].(map[string]any); rec["title"] != "u2 by sql" {
		t.Errorf("u2 got %v", m.Payload)
	}
	// u2 hears of nothing else: an update and a delete of its row come
	// next. (The feed reads a changed row as the subscriber to authorize
	// it: the update is awaited before the row is deleted.)
	for _, step := range []struct{ sql, want string }{
		{`update api.rt_todos set done = true where title = 'u2 by sql'`, "UPDATE"},
		{`delete from api.rt_todos where title = 'u2 by sql'`, "DELETE"},
	} {
		execSQL(t, step.sql)
		m := u2.expect(topic, "postgres_changes")
		if data, _ := m.Payload["data"].(map[string]any); data["type"] != step.want {
			t.Errorf("u2 got %v, want %s", m.Payload, step.want)
		}
	}

	t.Run("filters", func(t *testing.T) {
		c := dial(t, s, userToken(t, "u1"), "2.0.0")
		c.join("realtime:todos-filtered", changesConfig(map[string]any{"event": "INSERT", "schema": "api", "table": "rt_todos", "filter": "title=eq.wanted"}))
		execSQL(t, `insert into api.rt_todos (owner, title) values ('u1', 'unwanted'), ('u1', 'wanted')`)
		m := c.expect("realtime:todos-filtered", "postgres_changes")
		data, _ := m.Payload["data"].(map[string]any)
		if rec, _ := data["record"].(map[string]any); rec["title"] != "wanted" {
			t.Errorf("got %v", m.Payload)
		}
	})
	t.Run("a refused spec joins and gets a postgres_changes system error", func(t *testing.T) {
		// As Supabase: the join is answered, then the subscription's
		// failure; a later access_token subscribes again.
		c := dial(t, s, userToken(t, "u1"), "2.0.0")
		for i, spec := range []map[string]any{
			{"event": "*", "schema": "api", "table": "rt_todos", "filter": "nosuchcolumn=eq.1"},
			{"event": "*", "schema": "api", "table": "nosuchtable"},
		} {
			topic := fmt.Sprintf("realtime:refused-%d", i)
			c.join(topic, changesConfig(spec))
			sys := c.expect(topic, "system")
			msg, _ := sys.Payload["message"].(string)
			if sys.Payload["extension"] != "postgres_changes" || sys.Payload["status"] != "error" ||
				!strings.HasPrefix(msg, "Unable to subscribe to changes with given parameters.") {
				t.Errorf("%v: %v", spec, sys.Payload)
			}
		}
		// The socket goes on.
		hb := c.send("", "phoenix", "heartbeat", map[string]any{})
		if status, _ := c.expectReply(hb); status != "ok" {
			t.Errorf("heartbeat: %s", status)
		}
	})
}

// TestPostgresChangesAfterRefresh subscribes again when a refreshed
// token may read what the join's could not: realtime-js may join before
// its token is known, with the anon key, and send the token next.
func TestPostgresChangesAfterRefresh(t *testing.T) {
	s := pgresttest.StartWith(t, directives("realtime_publication pgrest_realtime", "realtime_node_name refresh_test"), pgresttest.Options{})
	const topic = "realtime:todos-refresh"
	c := dial(t, s, "", "2.0.0")
	ref := c.join(topic, changesConfig(map[string]any{"event": "INSERT", "schema": "api", "table": "rt_todos"}))
	if sys := c.expect(topic, "system"); sys.Payload["status"] != "error" {
		t.Fatalf("anonymous subscription: %v", sys.Payload)
	}
	c.send(ref, topic, "access_token", map[string]any{"access_token": userToken(t, "u3")})
	if sys := c.expect(topic, "system"); sys.Payload["status"] != "ok" || sys.Payload["message"] != "Subscribed to PostgreSQL" {
		t.Fatalf("after refresh: %v", sys.Payload)
	}
	execSQL(t, `insert into api.rt_todos (owner, title) values ('u3', 'after refresh')`)
	m := c.expect(topic, "postgres_changes")
	data, _ := m.Payload["data"].(map[string]any)
	ids, _ := m.Payload["ids"].([]any)
	if rec, _ := data["record"].(map[string]any); rec["title"] != "after refresh" || len(ids) != 1 || ids[0] != float64(1) {
		t.Errorf("got %v", m.Payload)
	}
}
