package realtime

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgrest/caddy-pgrest/realtime/changes"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// Two users of one role, and a second role, under row-level security,
// over a few hundred changes in transactions of several rows: each
// receives exactly the rows its role and claims make visible, never
// another's, and never a column its role may not read.
func TestRowLevelSecurity(t *testing.T) {
	e := newEnv(t, "rt_rls", changes.Config{})
	todos := changes.Spec{Event: "*", Schema: "public", Table: "todos"}
	aliceSub, _, alice := subscribe(t, e, user("alice"), todos)
	_, _, bob := subscribe(t, e, user("bob"), todos)
	_, _, staff := subscribe(t, e, changes.Identity{Role: "rt_staff", Claims: []byte(`{"role":"rt_staff"}`)}, todos)
	// anon may read nothing of todos: refused at Subscribe.
	if _, _, err := e.feed.Subscribe(context.Background(), anon, []changes.Spec{todos}, func(changes.Delivery) {}); err == nil {
		t.Error("rt_anon subscribed to todos, which it may not read")
	}
	const rows = 300
	var sql strings.Builder
	for i := 1; i <= rows; i += 10 {
		sql.WriteString("insert into todos (id, owner, body, secret, tags, meta, at) select g, case when g % 30 = 0 then 'staff' when g % 2 = 0 then 'alice' else 'bob' end, 'b' || g, 's', array['x', 'y'], '{\"k\": [1, true]}', '2024-05-01 12:30:00.25+02' from generate_series(")
		fmt.Fprintf(&sql, "%d, %d) g;\n", i, i+9)
	}
	pgtest.Exec(t, e.dsn, sql.String())
	for _, c := range []struct {
		name string
		s    *sink
		odd  int
	}{{"alice", alice, 1}, {"bob", bob, 0}} {
		var want []int
		for i := 1; i <= rows; i++ {
			if i%2 != c.odd && i%30 != 0 {
				want = append(want, i)
			}
		}
		got := c.s.wait(t, len(want))
		var ids []int
		for _, d := range got {
			if d.Data.Record["owner"] != c.name {
				t.Fatalf("%s received %s", c.name, d.raw)
			}
			if _, ok := d.Data.Record["secret"]; ok {
				t.Fatalf("%s received the column it may not read: %s", c.name, d.raw)
			}
			for _, col := range d.Data.Columns {
				if col["name"] == "secret" {
					t.Fatalf("columns name the column %s may not read: %s", c.name, d.raw)
				}
			}
			ids = append(ids, int(d.Data.Record["id"].(float64)))
		}
		if !slices.Equal(ids, want) {
			t.Errorf("%s received ids %v, want %v", c.name, ids, want)
		}
	}
	var staffIDs []float64
	for _, d := range staff.wait(t, rows/30) {
		if d.Data.Record["owner"] != "staff" {
			t.Fatalf("rt_staff received %s", d.raw)
		}
		if _, ok := d.Data.Record["secret"]; !ok {
			t.Errorf("rt_staff may read secret, but its payload lacks it: %s", d.raw)
		}
		staffIDs = append(staffIDs, d.Data.Record["id"].(float64))
	}
	if len(staffIDs) != rows/30 || staffIDs[0] != 30 || staffIDs[len(staffIDs)-1] != rows {
		t.Errorf("rt_staff received ids %v, want every 30th", staffIDs)
	}
	d := alice.snapshot()[0]
	for _, want := range []string{`"tags":["x","y"]`, `"meta":{"k":[1,true]}`, `"at":"2024-05-01T10:30:00.25+00:00"`} {
		if !strings.Contains(d.raw, want) {
			t.Errorf("payload %s lacks %s", d.raw, want)
		}
	}
	if got := fmt.Sprint(d.Data.Columns); !strings.Contains(got, "map[name:tags type:_text]") {
		t.Errorf("columns %s: an array column's type is _text", got)
	}

	// A token refresh that changes the claims changes what is seen.
	pgtest.Exec(t, e.dsn, `insert into todos (id, owner) values (1001, 'carol')`)
	pgtest.Exec(t, e.dsn, `insert into todos (id, owner) values (1002, 'alice')`)
	aliceCount := len(alice.snapshot())
	if got := alice.wait(t, aliceCount+1); got[len(got)-1].Data.Record["id"] != float64(1002) {
		t.Errorf("alice's last delivery %s", got[len(got)-1].raw)
	}
	aliceSub.SetIdentity(user("carol"))
	pgtest.Exec(t, e.dsn, `insert into todos (id, owner) values (1003, 'alice'); insert into todos (id, owner) values (1004, 'carol')`)
	if got := alice.wait(t, aliceCount+2); got[len(got)-1].Data.Record["id"] != float64(1004) {
		t.Errorf("after SetIdentity(carol), the last delivery is %s, want carol's row 1004", got[len(got)-1].raw)
	}
}

// A DELETE carries what Supabase sends: under row-level security only
// the primary key, even with replica identity full; without it, the old
// row as the replica identity gives it.
func TestDeletePayload(t *testing.T) {
	e := newEnv(t, "rt_delete", changes.Config{})
	pgtest.Exec(t, e.dsn, `alter table todos replica identity full;
insert into todos (id, owner, body) values (1, 'alice', 'x');
insert into notes values (1, 'one', 1), (2, 'two', 2);
alter table notes replica identity full;`)
	_, _, todos := subscribe(t, e, user("alice"), changes.Spec{Event: "DELETE", Schema: "public", Table: "todos"})
	_, _, notes := subscribe(t, e, anon, changes.Spec{Event: "DELETE", Schema: "public", Table: "notes"})
	pgtest.Exec(t, e.dsn, `delete from todos where id = 1; delete from notes where id = 1;`)
	if got := todos.wait(t, 1)[0]; !strings.Contains(got.raw, `"old_record":{"id":1}`) || got.Data.Record != nil {
		t.Errorf("todos delete payload %s, want old_record {\"id\":1} and no record", got.raw)
	}
	if got := notes.wait(t, 1)[0]; !strings.Contains(got.raw, `"old_record":{"n":1,"id":1,"body":"one"}`) {
		t.Errorf("notes delete payload %s, want the whole old row", got.raw)
	}
	pgtest.Exec(t, e.dsn, `alter table notes replica identity default; delete from notes where id = 2;`)
	if got := notes.wait(t, 2)[1]; !strings.Contains(got.raw, `"old_record":{"id":2}`) {
		t.Errorf("notes delete payload %s, want only the key", got.raw)
	}
}

// Under row-level security every committed row reaches the user who may
// see it, also when the feed checks a row the moment its commit is
// decoded: PostgreSQL sends a commit to the replication stream before
// the committing session's snapshot work is done, and a visibility
// query run in between would not see the row yet and drop it. Writers
// commit synchronously, one row per transaction, as an application
// does, so that the stream runs right behind them.
func TestRowLevelSecurityMissesNoCommit(t *testing.T) {
	e := newEnv(t, "rt_rls_commits", changes.Config{})
	_, _, alice := subscribe(t, e, user("alice"), changes.Spec{Event: "INSERT", Schema: "public", Table: "todos"})
	const writers, perWriter = 4, 500
	cfg, err := pgx.ParseConfig(e.dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["synchronous_commit"] = "on"
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := pgx.ConnectConfig(t.Context(), cfg)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close(context.Background())
			for i := range perWriter {
				id := w*perWriter + i + 1
				if _, err := conn.Exec(t.Context(), "insert into todos (id, owner) values ($1, 'alice')", id); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Not alice.wait: its failure would list 2,000 deliveries; this
	// names the rows that did not come.
	const rows = writers * perWriter
	deadline := time.Now().Add(20 * time.Second)
	for len(alice.snapshot()) < rows && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	seen := map[int]int{}
	for _, d := range alice.snapshot() {
		seen[int(d.Data.Record["id"].(float64))]++
	}
	var missing, twice []int
	for id := 1; id <= rows; id++ {
		switch seen[id] {
		case 0:
			missing = append(missing, id)
		case 1:
		default:
			twice = append(twice, id)
		}
	}
	if len(missing) > 0 || len(twice) > 0 {
		t.Errorf("of %d rows alice may see, never received: %v; received more than once: %v", rows, missing, twice)
	}
}

// The visibility check runs as the subscriber's role in a schema the
// authenticator may not use, as PostgREST's authenticator need not: its
// query is parsed after the role switch, not prepared ahead as the
// authenticator (which failed with "permission denied for schema").
func TestRowLevelSecurityInASchemaOnlyTheRoleMayUse(t *testing.T) {
	e := newEnv(t, "rt_rls_schema", changes.Config{})
	pgtest.Exec(t, e.dsn, `create schema hideaway;
grant usage on schema hideaway to rt_user;
create table hideaway.todos (id int primary key, owner text);
alter table hideaway.todos enable row level security;
create policy own on hideaway.todos for select to rt_user
  using (owner = current_setting('request.jwt.claims', true)::json ->> 'sub');
grant select on hideaway.todos to rt_user;
alter publication pgrest_realtime add table hideaway.todos;`)
	_, _, alice := subscribe(t, e, user("alice"), changes.Spec{Event: "INSERT", Schema: "hideaway", Table: "todos"})
	pgtest.Exec(t, e.dsn, `insert into hideaway.todos values (1, 'bob'), (2, 'alice');
insert into hideaway.todos values (3, 'alice')`)
	got := alice.wait(t, 2)
	if len(got) != 2 || got[0].Data.Record["id"] != float64(2) || got[1].Data.Record["id"] != float64(3) {
		t.Errorf("alice received %v, want rows 2 and 3", summary(got))
	}
}

// A visibility statement deallocated from the pool's connection (by a
// function that runs DEALLOCATE, say) is prepared again at once: the
// change checked at that moment still reaches its subscriber. One
// connection, so that the next check runs where the statement was.
func TestRowLevelSecurityAfterDeallocate(t *testing.T) {
	e := newEnvWithPool(t, "rt_rls_dealloc", changes.Config{}, 1)
	_, _, alice := subscribe(t, e, user("alice"), changes.Spec{Event: "INSERT", Schema: "public", Table: "todos"})
	pgtest.Exec(t, e.dsn, `insert into todos (id, owner) values (1, 'alice')`)
	alice.wait(t, 1)
	conns := make([]*pgxpool.Conn, e.pool.Config().MaxConns)
	dropped := 0
	for i := range conns {
		c, err := e.pool.Acquire(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
		rows, err := c.Query(t.Context(), "select name from pg_prepared_statements where name like 'pgrest_realtime_visible_%'")
		if err != nil {
			t.Fatal(err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if _, err := c.Exec(t.Context(), "deallocate "+pgx.Identifier{name}.Sanitize()); err != nil {
				t.Fatal(err)
			}
			dropped++
		}
	}
	for _, c := range conns {
		c.Release()
	}
	if dropped == 0 {
		t.Fatal("no visibility statement was prepared on the pool's connections")
	}
	pgtest.Exec(t, e.dsn, `insert into todos (id, owner) values (2, 'alice')`)
	if got := alice.wait(t, 2); got[1].Data.Record["id"] != float64(2) {
		t.Errorf("alice received %v, want rows 1 and 2", summary(got))
	}
}
