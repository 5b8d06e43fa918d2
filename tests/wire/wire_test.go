// Package wire checks what a request costs PostgreSQL at the protocol
// level: which statements pgrest sends for it, which of them the server
// has to parse, and their shape. A recording proxy sits between pgrest
// and PostgreSQL (proxy_test.go).
//
// With prepared statements (the default) a connection that has served a
// request shape once serves it again with no Parse and no Describe at
// all: BEGIN, the settings statement, the main statement and COMMIT are
// all named statements of the connection, bound and executed, their
// results read with the descriptions the connection kept. With db_prepared_statements false (a
// transaction pooler such as PgBouncer) nothing is named.
package wire

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/executorsql"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

const jwtSecret = "pgrest-wire-test-secret-0123456789abcdefghijklmn"

// The statements pgrest sends around every read, as the executor's
// source has them (executor/runner.go, executor/settings.go).
var (
	executorSQL   = executorsql.MustLoad()
	beginReadOnly = executorSQL.BeginReadOnly
	settingsSQL   = executorSQL.Settings
)

// fixture is served by the tests; the roles are pgresttest.SetUp's.
var fixture = `
create schema api;
grant usage on schema api to web_anon, webuser;
create table api.items (id int primary key, name text not null);
insert into api.items select i, 'item ' || i from generate_series(1, 10) i;
grant select on api.items to web_anon, webuser;
create function api.setting(name text) returns text
language sql stable
as $f$ select current_setting(name, true) $f$;
grant execute on function api.setting(text) to web_anon, webuser;
`

var db *pgresttest.DB

func TestMain(m *testing.M) {
	// These tests set db_prepared_statements themselves and check both
	// ways; a PgBouncer in front would only hide the connection the
	// proxy watches.
	_ = os.Unsetenv(pgresttest.EnvPgBouncer)
	db = pgresttest.MustSetUp("pgrest_wire", pgresttest.SQL("the wire fixture", fixture),
		pgresttest.SQL("the write fixture", writeFixture))
	db.Run(m)
}

// startThroughRecorder serves pgrest with one pool connection, reaching
// PostgreSQL through a recorder, and waits for its schema cache with
// anonymous calls of api.setting, which prepare BEGIN, the settings
// statement and COMMIT on the connection, and no read of api.items.
func startThroughRecorder(t *testing.T, lines ...string) (*pgresttest.Server, *recorder) {
	t.Helper()
	u, err := url.Parse(db.AuthenticatorDSN())
	if err != nil {
		t.Fatal(err)
	}
	rec := startRecorder(t, u.Host)
	u.Host = rec.addr()
	s := pgresttest.Start(t, map[string]string{
		"db_uri":       pgresttest.Quote(u.String()),
		"db_schemas":   "api",
		"db_anon_role": "web_anon",
		"jwt_secret":   jwtSecret,
		// One connection: every request runs on the one the test watches.
		"db_pool": "1",
	}, lines...)
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := s.Try(http.DefaultClient, "GET", "/rpc/setting?name=request.method", "")
		if err == nil && res.Status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pgrest is not ready: %v %v", res, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s, rec
}

func bearer(t *testing.T, claims jwt.MapClaims) []string {
	return pgresttest.Bearer(pgresttest.Token(t, jwtSecret, claims))
}

// requestMessages sends one request and returns the messages pgrest sent
// for it.
func requestMessages(t *testing.T, s *pgresttest.Server, rec *recorder, path string, headers ...string) []message {
	t.Helper()
	mark := rec.mark()
	s.Get(t, path, headers...).ExpectStatus(t, 200)
	return rec.requestSince(mark)
}

// resetStatements are the statements that reset the session after each
// transaction, in the order pgrest sends them (executor/session_reset.go),
// and reset is the messages of their Bind and Execute.
var resetStatements = executorSQL.SessionReset

var reset = strings.Repeat("BE", len(resetStatements))

// endsWithReset says whether the statements bound end with the session
// reset.
func endsWithReset(bound []string) bool {
	return len(bound) >= len(resetStatements) && slices.Equal(bound[len(bound)-len(resetStatements):], resetStatements)
}

func kinds(msgs []message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteByte(m.kind)
	}
	return b.String()
}

// parsed maps each statement name to the text a Parse gave it.
func parsed(msgs []message) map[string]string {
	out := map[string]string{}
	for _, m := range msgs {
		if m.kind == 'P' {
			out[m.name] = m.sql
		}
	}
	return out
}

func TestAReadParsesNothingOnceItsConnectionHasServedIt(t *testing.T) {
	s, rec := startThroughRecorder(t)
	user := bearer(t, jwt.MapClaims{"role": "webuser"})
	first := requestMessages(t, s, rec, "/items?id=eq.2", user...)
	steady := requestMessages(t, s, rec, "/items?id=eq.3", user...)

	// Bind and Execute for each of BEGIN, the settings, the main
	// statement, COMMIT and the session reset, then one Sync: one round
	// trip, no Parse, no Describe.
	if got, want := kinds(steady), "BEBEBEBE"+reset+"S"; got != want {
		t.Fatalf("a read sent %q, want %q (Bind, Execute of four named statements and the reset, then Sync): %+v", got, want, steady)
	}
	texts := parsed(rec.since(0))
	var bound []string
	for _, m := range steady {
		if m.kind != 'B' {
			continue
		}
		if !strings.HasPrefix(m.name, "pgrst_") {
			t.Errorf("bound statement %q: want one of pgrest's named statements", m.name)
		}
		bound = append(bound, texts[m.name])
	}
	if len(bound) != 4+len(resetStatements) || bound[0] != beginReadOnly || bound[1] != settingsSQL ||
		!strings.Contains(bound[2], `from "api"."items"`) || bound[3] != "COMMIT" || !endsWithReset(bound) {
		t.Errorf("the statements bound are, in order:\n%s\nwant BEGIN READ ONLY, the settings statement without app settings, the read, COMMIT, the session reset",
			strings.Join(bound, "\n"))
	}
	// The first read prepared its main statement, the one statement
	// the warm-up had not prepared on the connection, and described it
	// (Parse, Describe of the statement) and its portal, before its
	// description came back.
	if p := parsed(first); len(p) != 1 {
		t.Errorf("the first read parsed %d statements, want 1 (the read): %v", len(p), p)
	}
	if got, want := kinds(first), "BEBEPDBDEBE"+reset+"S"; got != want {
		t.Errorf("the first read sent %q, want %q", got, want)
	}

	t.Run("another role prepares its own main statement once, and shares BEGIN, the settings and COMMIT", func(t *testing.T) {
		anon := requestMessages(t, s, rec, "/items?id=eq.4")
		if p := parsed(anon); len(p) != 1 {
			t.Errorf("the first anonymous read parsed %d statements, want 1: %v", len(p), p)
		}
		if got := kinds(requestMessages(t, s, rec, "/items?id=eq.5")); got != "BEBEBEBE"+reset+"S" {
			t.Errorf("the second sent %q", got)
		}
	})
}

func TestWithoutPreparedStatementsNothingIsNamed(t *testing.T) {
	s, rec := startThroughRecorder(t, "db_prepared_statements false")
	user := bearer(t, jwt.MapClaims{"role": "webuser"})
	for range 2 {
		msgs := requestMessages(t, s, rec, "/items?id=eq.2", user...)
		if got, want := kinds(msgs), "PBDEPBDEPBDEPBDE"+strings.Repeat("PBDE", len(resetStatements))+"S"; got != want {
			t.Fatalf("a read sent %q, want %q (four unnamed statements and the reset, then Sync): %+v", got, want, msgs)
		}
		for _, m := range msgs {
			if m.name != "" {
				t.Errorf("%c of the named statement %q: a transaction pooler may hand the next transaction another server connection", m.kind, m.name)
			}
		}
		if p := parsed(msgs); p[""] != resetStatements[len(resetStatements)-1] {
			t.Errorf("the last statement parsed is %q, want the session reset's last, %q", p[""], resetStatements[len(resetStatements)-1])
		}
	}
}

func TestAppSettingsAreArgumentsOfTheirOwnSetConfig(t *testing.T) {
	s, rec := startThroughRecorder(t, "app_settings app.settings.greeting=hello app.settings.answer=42")
	for name, want := range map[string]string{"app.settings.greeting": `"hello"`, "app.settings.answer": `"42"`} {
		res := s.Get(t, "/rpc/setting?name="+name)
		res.ExpectStatus(t, 200)
		if got := strings.TrimSpace(string(res.Body)); got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	want := settingsSQL + ", set_config($8, $9, true), set_config($10, $11, true)"
	found := false
	for _, text := range parsed(rec.since(0)) {
		if strings.HasPrefix(text, "select set_config('role'") {
			found = true
			if text != want {
				t.Errorf("settings statement:\n%s\nwant\n%s", text, want)
			}
		}
	}
	if !found {
		t.Error("no settings statement was prepared")
	}
}

// Claims beyond what the settings statement takes as arguments (a legacy
// token with very many) travel as one JSON object, so that every count of
// claims does not prepare a statement of its own.
func TestManyLegacyClaimsAreStillEachASetting(t *testing.T) {
	s, rec := startThroughRecorder(t, "db_legacy_claims true")
	claims := jwt.MapClaims{"role": "webuser"}
	for i := range 40 {
		claims[fmt.Sprintf("c%02d", i)] = fmt.Sprintf("value %d", i)
	}
	for _, name := range []string{"c00", "c39", "role"} {
		res := s.Get(t, "/rpc/setting?name=request.jwt.claim."+name, bearer(t, claims)...)
		res.ExpectStatus(t, 200)
		want := fmt.Sprintf(`"%v"`, claims[name])
		if got := strings.TrimSpace(string(res.Body)); got != want {
			t.Errorf("request.jwt.claim.%s = %s, want %s", name, got, want)
		}
	}
	few := jwt.MapClaims{"role": "webuser", "email": "a@b.c"}
	res := s.Get(t, "/rpc/setting?name=request.jwt.claim.email", bearer(t, few)...)
	res.ExpectStatus(t, 200)
	if got := strings.TrimSpace(string(res.Body)); got != `"a@b.c"` {
		t.Errorf("request.jwt.claim.email = %s", got)
	}
	var json, args int
	for _, text := range parsed(rec.since(0)) {
		switch {
		case strings.Contains(text, "json_each_text($7::json)"):
			json++
		case strings.HasSuffix(text, "set_config($7, $8, true), set_config($9, $10, true)"):
			args++
		}
	}
	if json != 1 || args != 1 {
		t.Errorf("prepared %d settings statements reading JSON (want 1, for 41 claims) and %d taking two claims as arguments (want 1)", json, args)
	}
}
