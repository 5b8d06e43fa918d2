package wire

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// writeFixture is what the write and call tests change, apart from the
// read fixture. Every test keeps to ids of its own.
const writeFixture = `
create table api.notes (id int primary key, body text not null);
grant select, insert, update, delete on api.notes to webuser;
create function api.add_note(id int, body text) returns api.notes
language sql volatile
as $f$ insert into api.notes values (id, body) returning * $f$;
grant execute on function api.add_note(int, text) to webuser;
create function api.stale_pre() returns int language sql stable as $f$ select 1 $f$;
grant execute on function api.stale_pre() to web_anon;
`

// do sends one request, checks its status and body and returns the
// messages pgrest sent for it.
func do(t *testing.T, s *pgresttest.Server, rec *recorder, status int, want, method, path, body string, headers ...string) []message {
	t.Helper()
	mark := rec.mark()
	var header map[string]string
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Accept" && status < 300 {
			header = map[string]string{"Content-Type": headers[i+1] + "; charset=utf-8"}
		}
	}
	s.Do(t, method, path, body, headers...).Expect(t, status, want, header)
	return rec.requestSince(mark)
}

// boundTexts is the text of each statement the messages bind, in order.
func boundTexts(all, msgs []message) []string {
	texts := parsed(all)
	var out []string
	for _, m := range msgs {
		if m.kind == 'B' {
			out = append(out, texts[m.name])
		}
	}
	return out
}

func TestASteadyWriteOrCallDescribesNothing(t *testing.T) {
	s, rec := startThroughRecorder(t)
	user := bearer(t, jwt.MapClaims{"role": "webuser"})
	repr := append([]string{"Prefer", "return=representation"}, user...)
	for _, c := range []struct {
		name                  string
		method, first, then   string
		firstBody, thenBody   string
		firstWant, thenWant   string
		status                int
		headers               []string
		wantFirst, wantSteady string
	}{
		{name: "an insert", method: "POST", first: "/notes", then: "/notes",
			firstBody: `{"id": 1, "body": "one"}`, thenBody: `{"id": 2, "body": "two"}`,
			firstWant: `[{"id":1,"body":"one"}]`, thenWant: `[{"id":2,"body":"two"}]`,
			status: 201, headers: repr,
			// BEGIN and COMMIT read-write are new to the connection: their
			// Parse goes without a Describe of the portal.
			wantFirst: "PDBEBEPDBDEBE" + reset + "S", wantSteady: "BEBEBEBE" + reset + "S"},
		{name: "a call", method: "POST", first: "/rpc/add_note", then: "/rpc/add_note",
			firstBody: `{"id": 3, "body": "three"}`, thenBody: `{"id": 4, "body": "four"}`,
			firstWant: `{"id":3,"body":"three"}`, thenWant: `{"id":4,"body":"four"}`,
			status: 200, headers: user,
			wantFirst: "BEBEPDBDEBE" + reset + "S", wantSteady: "BEBEBEBE" + reset + "S"},
		{name: "a guarded update", method: "PATCH", first: "/notes?id=eq.1", then: "/notes?id=eq.2",
			firstBody: `{"body": "uno"}`, thenBody: `{"body": "dos"}`,
			firstWant: `{"id":1,"body":"uno"}`, thenWant: `{"id":2,"body":"dos"}`,
			status: 200, headers: append([]string{"Accept", "application/vnd.pgrst.object+json"}, repr...),
			// BEGIN, the settings, the update, the guard, Sync, COMMIT,
			// the session reset, Sync.
			wantFirst: "BEBEPDBDEPDBDESBE" + reset + "S", wantSteady: "BEBEBEBESBE" + reset + "S"},
	} {
		t.Run(c.name, func(t *testing.T) {
			first := do(t, s, rec, c.status, c.firstWant, c.method, c.first, c.firstBody, c.headers...)
			if got := kinds(first); got != c.wantFirst {
				t.Errorf("the first sent %q, want %q", got, c.wantFirst)
			}
			steady := do(t, s, rec, c.status, c.thenWant, c.method, c.then, c.thenBody, c.headers...)
			if got := kinds(steady); got != c.wantSteady {
				t.Errorf("the second sent %q, want %q (Bind and Execute of named statements, no Describe): %+v", got, c.wantSteady, steady)
			}
			for _, m := range steady {
				if m.kind == 'B' && !strings.HasPrefix(m.name, "pgrst_") {
					t.Errorf("bound statement %q: want one of pgrest's named statements", m.name)
				}
			}
			bound := boundTexts(rec.since(0), steady)
			if len(bound) <= len(resetStatements) || !strings.HasPrefix(bound[0], "BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE") ||
				bound[len(bound)-len(resetStatements)-1] != "COMMIT" || !endsWithReset(bound) {
				t.Errorf("the statements bound are, in order:\n%s\nwant BEGIN READ WRITE first, then COMMIT and the session reset last", strings.Join(bound, "\n"))
			}
		})
	}
}

// A guarded write whose main statement or guard fails on statements the
// connection knows rolls back in its one round trip, and the connection
// goes on serving: the COMMIT after the guard's Sync is read right
// although the statements skipped after the error were sent undescribed.
func TestAFailedGuardedWriteOnKnownStatementsLeavesTheConnectionServing(t *testing.T) {
	s, rec := startThroughRecorder(t)
	user := bearer(t, jwt.MapClaims{"role": "webuser"})
	single := append([]string{"Accept", "application/vnd.pgrst.object+json", "Prefer", "return=representation"}, user...)
	s.Do(t, "POST", "/notes", `[{"id": 20, "body": "a"}, {"id": 21, "body": "b"}]`, user...).ExpectStatus(t, 201)

	// Warm: every statement of both shapes is prepared and described.
	do(t, s, rec, 200, `{"id":20,"body":"x"}`, "PATCH", "/notes?id=eq.20", `{"body": "x"}`, single...)
	do(t, s, rec, 201, `{"id":22,"body":"c"}`, "POST", "/notes", `{"id": 22, "body": "c"}`, single...)
	do(t, s, rec, 200, `{"id":20,"body":"x"}`, "PATCH", "/notes?id=in.(20)", `{"body": "x"}`, single...)

	// The guard fails: two rows for a singular response.
	msgs := do(t, s, rec, 406,
		`{"code":"PGRST116","details":"The result contains 2 rows","hint":null,"message":"Cannot coerce the result to a single JSON object"}`,
		"PATCH", "/notes?id=in.(20,21)", `{"body": "y"}`, single...)
	if got := kinds(msgs); got != "BEBEBEBESBE"+reset+"S" {
		t.Errorf("the failed guard sent %q", got)
	}
	// The main statement fails before the guard, which is skipped.
	res := s.Do(t, "POST", "/notes", `{"id": 21, "body": "dup"}`, single...)
	res.ExpectError(t, 409, "23505")

	got := strings.Join(strings.Fields(string(pgresttest.SQLJSON(t, db.SuperDSN,
		"select id, body from api.notes where id between 20 and 22 order by id"))), "")
	if want := `[{"id":20,"body":"x"},{"id":21,"body":"b"},{"id":22,"body":"c"}]`; got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
	for range 3 {
		do(t, s, rec, 200, `{"id":21,"body":"z"}`, "PATCH", "/notes?id=eq.21", `{"body": "z"}`, single...)
	}
}

// A named statement's result cannot change its columns: when a DDL
// changes them (here the pre-request function's return type), PostgreSQL
// fails the statement's Bind with 0A000 whether or not its portal is
// described, and PostgREST answers that error with 400. A schema cache
// reload deallocates the connection's statements, descriptions with them,
// and the next request prepares and describes the statement afresh.
func TestAResultTypeChangedByDDLIsAClientErrorUntilTheSchemaReloads(t *testing.T) {
	s, rec := startThroughRecorder(t, "db_pre_request api.stale_pre")
	for range 2 {
		s.Get(t, "/items?id=eq.1").Expect(t, 200, `[{"id":1,"name":"item 1"}]`, nil)
	}
	pgtest.Exec(t, db.SuperDSN, `drop function api.stale_pre();
		create function api.stale_pre() returns text language sql stable as $f$ select 'changed' $f$;
		grant execute on function api.stale_pre() to web_anon;`)
	s.Get(t, "/items?id=eq.1").ExpectErrorFields(t, 400, "0A000", "cached plan must not change result type", nil, nil)

	waitForListener(t)
	pgtest.Exec(t, db.SuperDSN, `notify pgrst, 'reload schema'`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		mark := rec.mark()
		res := s.Get(t, "/items?id=eq.1")
		if res.Status == http.StatusOK {
			if got := strings.TrimSpace(string(res.Body)); got != `[{"id":1,"name":"item 1"}]` {
				t.Errorf("after the reload: body %s", got)
			}
			if p := parsed(rec.since(mark)); len(p) == 0 {
				t.Errorf("after the reload, nothing was prepared again")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the reload: %d %s", res.Status, res.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	steady := rec.mark()
	s.Get(t, "/items?id=eq.2").ExpectStatus(t, 200)
	if got := kinds(rec.requestSince(steady)); got != "BEBEBEBEBE"+reset+"S" {
		t.Errorf("a steady read with a pre-request sent %q", got)
	}
}

// waitForListener waits until pgrest listens for notifications, so that
// one NOTIFY reloads its schema cache exactly once.
func waitForListener(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for pgresttest.SQLInt(t, db.SuperDSN, `select count(*) from pg_stat_activity
		where datname = current_database() and query ilike 'listen %'`) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("pgrest did not start listening for notifications within 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
