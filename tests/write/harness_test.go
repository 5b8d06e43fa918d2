// Package write holds HTTP tests of pgrest's write API (POST, PUT, PATCH,
// DELETE) against the fixture testdata/*.sql, loaded once into a throwaway
// cluster. Every test starts from the fixture's seed rows (reset) and every
// error path checks that the tables it touches are unchanged.
package write

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
	_ "github.com/pgrest/caddy-pgrest/caddymodule"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// Shared by every test of this package.
var (
	cluster *pgtest.Cluster
	// superDSN connects as a superuser to the test database.
	superDSN string
	// authDSN connects as the authenticator.
	authDSN string
)

const (
	authenticatorPassword = "authenticator-password"
	// jwtSecret is the HS256 passphrase every default server verifies with.
	jwtSecret = "pgrest-write-tests-secret-long-enough-0123456789"
)

// TestMain starts one throwaway cluster, makes the database and loads
// testdata/*.sql in name order.
func TestMain(m *testing.M) {
	cluster = pgtest.MustStart()
	code := func() int {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		dsn, err := cluster.NewDatabase(ctx, "pgrest_write")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		superDSN = dsn
		authDSN = pgtest.DSNFor(dsn, "authenticator", authenticatorPassword)
		files, _ := filepath.Glob("testdata/*.sql")
		sort.Strings(files)
		for _, f := range files {
			sql, err := os.ReadFile(f)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			if err := pgtest.ExecSQL(ctx, superDSN, string(sql)); err != nil {
				fmt.Fprintf(os.Stderr, "loading %s: %v\n", f, err)
				return 1
			}
		}
		return m.Run()
	}()
	cluster.Stop()
	os.Exit(code)
}

// server is a running Caddy with one pgrest handler.
type server struct {
	URL string
}

// defaultDirectives is the handler configuration startServer starts from.
func defaultDirectives() map[string]string {
	return map[string]string{
		"db_uri":       authDSN,
		"db_schemas":   "api",
		"db_anon_role": "web_anon",
		"jwt_secret":   jwtSecret,
	}
}

// startServer loads a real Caddy config (adapted from a Caddyfile) serving
// pgrest on a free loopback port. Each argument is a subdirective line
// ("db_tx_end rollback") replacing the default of the same name; "-name"
// removes a default. Caddy runs one config at a time, so tests of this
// package do not run in parallel and start one server per top-level test.
// The server stops when the test ends.
func startServer(t testing.TB, lines ...string) *server {
	t.Helper()
	dirs := defaultDirectives()
	for _, l := range lines {
		if strings.HasPrefix(l, "-") {
			delete(dirs, l[1:])
			continue
		}
		name, value, _ := strings.Cut(l, " ")
		dirs[name] = value
	}
	names := make([]string, 0, len(dirs))
	for n := range dirs {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "\t\t%s %s\n", n, dirs[n])
	}
	port := freePort(t)
	caddyfile := fmt.Sprintf("{\n\tadmin off\n\tauto_https off\n\tpersist_config off\n}\nhttp://127.0.0.1:%d {\n\tpgrest {\n%s\t}\n}\n", port, b.String())
	cfg, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), nil)
	if err != nil {
		t.Fatalf("adapting Caddyfile: %v\n%s", err, caddyfile)
	}
	for _, w := range warnings {
		t.Logf("caddyfile warning: %s", w.Message)
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatalf("loading Caddy config: %v\n%s", err, caddyfile)
	}
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stopping Caddy: %v", err)
		}
	})
	return &server{URL: fmt.Sprintf("http://127.0.0.1:%d", port)}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// response is what a request got back.
type response struct {
	Method string
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body, failing t when it is not JSON.
func (r *response) JSON(t testing.TB) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("body is not JSON (status %d): %v\n%s", r.Status, err, r.Body)
	}
	return v
}

// expectStatus fails t unless the response has status.
func (r *response) expectStatus(t testing.TB, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; body %s", r.Status, status, r.Body)
	}
}

// Error decodes an error body and checks it has exactly the contract's
// four fields.
func (r *response) Error(t testing.TB) map[string]any {
	t.Helper()
	m, ok := r.JSON(t).(map[string]any)
	if !ok {
		t.Fatalf("error body is not an object: %s", r.Body)
	}
	for _, k := range []string{"code", "message", "details", "hint"} {
		if _, ok := m[k]; !ok {
			t.Fatalf("error body lacks %q: %s", k, r.Body)
		}
	}
	if len(m) != 4 {
		t.Fatalf("error body has fields beyond the contract's four: %s", r.Body)
	}
	return m
}

// expectError checks status, code and the error headers of the contract,
// and returns the error body.
func (r *response) expectError(t testing.TB, status int, code string) map[string]any {
	t.Helper()
	r.expectStatus(t, status)
	if ps := r.Header.Get("Proxy-Status"); ps != "pgrest; error="+code {
		t.Errorf("Proxy-Status %q, want %q", ps, "pgrest; error="+code)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if r.Method == http.MethodHead {
		if len(r.Body) != 0 {
			t.Errorf("a HEAD response has a body: %s", r.Body)
		}
		return nil
	}
	e := r.Error(t)
	if e["code"] != code {
		t.Fatalf("code %v, want %s; body %s", e["code"], code, r.Body)
	}
	return e
}

// expectBody compares the body with want structurally (both JSON).
func (r *response) expectBody(t testing.TB, want string) {
	t.Helper()
	jsonEqual(t, "body", r.Body, want)
}

// expectNoBody checks the response has no body and no Content-Type.
func (r *response) expectNoBody(t testing.TB) {
	t.Helper()
	if len(r.Body) != 0 {
		t.Errorf("body %q, want none", r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		t.Errorf("Content-Type %q on a response without a body", ct)
	}
}

// expectHeader checks one header's value; "" means absent.
func (r *response) expectHeader(t testing.TB, name, want string) {
	t.Helper()
	vs, present := r.Header[http.CanonicalHeaderKey(name)]
	if want == "" {
		if present {
			t.Errorf("%s %q, want none", name, vs)
		}
		return
	}
	if got := r.Header.Get(name); got != want {
		t.Errorf("%s %q, want %q", name, got, want)
	}
}

// expectApplied checks Preference-Applied lists exactly want (in any
// order: the header is a list of independent preferences); no argument
// means the header is absent.
func (r *response) expectApplied(t testing.TB, want ...string) {
	t.Helper()
	var got []string
	for _, v := range r.Header.Values("Preference-Applied") {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				got = append(got, p)
			}
		}
	}
	sort.Strings(got)
	w := append([]string(nil), want...)
	sort.Strings(w)
	if len(got) == 0 && len(w) == 0 {
		return
	}
	if !reflect.DeepEqual(got, w) {
		t.Errorf("Preference-Applied %q, want %q", r.Header.Values("Preference-Applied"), want)
	}
}

// do sends a request with a JSON body (when body is not empty). headers
// alternate name, value; an empty value removes the header.
func (s *server) do(t testing.TB, method, path, body string, headers ...string) *response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
			continue
		}
		req.Header.Add(headers[i], headers[i+1])
		if strings.EqualFold(headers[i], "Content-Type") {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &response{Method: method, Status: res.StatusCode, Header: res.Header, Body: b}
}

// asUser is the Authorization header pair of a token for role webuser.
func asUser(t testing.TB) []string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"role": "webuser"}).SignedString([]byte(jwtSecret))
	if err != nil {
		t.Fatal(err)
	}
	return []string{"Authorization", "Bearer " + s}
}

// reset brings the fixture's tables back to their seed rows.
func reset(t testing.TB) {
	t.Helper()
	pgtest.Exec(t, superDSN, "select private.reset()")
}

// sqlJSON runs query as the superuser and returns its rows as a JSON
// array (through json_agg).
func sqlJSON(t testing.TB, query string, args ...any) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, superDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var b []byte
	err = conn.QueryRow(ctx, "select coalesce(json_agg(q), '[]')::text from ("+query+") q", args...).Scan(&b)
	if err != nil {
		t.Fatalf("sqlJSON: %v\n%s", err, query)
	}
	return b
}

// expectRows compares the rows of query (run as the superuser) with want,
// a JSON array, structurally.
func expectRows(t testing.TB, query, want string) {
	t.Helper()
	jsonEqual(t, query, sqlJSON(t, query), want)
}

// snapshot returns every row of table (schema-qualified), ordered by its
// primary key (by all its columns when it has none), as JSON.
func snapshot(t testing.TB, table string) string {
	t.Helper()
	var order []string
	for _, r := range decodeRows(t, sqlJSON(t, `
		select a.attname as col
		from pg_catalog.pg_index i
		join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = any (i.indkey)
		where i.indrelid = $1::regclass and i.indisprimary
		order by array_position(i.indkey::int2[], a.attnum)`, table)) {
		order = append(order, quoteIdent(r["col"].(string)))
	}
	by := "t::text"
	if len(order) > 0 {
		by = strings.Join(order, ", ")
	}
	return string(sqlJSON(t, "select * from "+table+" t order by "+by))
}

// unchanged fails t when table's rows differ from the snapshot before.
func unchanged(t testing.TB, table, before string) {
	t.Helper()
	after := snapshot(t, table)
	var b, a any
	if err := json.Unmarshal([]byte(before), &b); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(after), &a); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("%s changed:\nbefore %s\nafter  %s", table, before, after)
	}
}

// untouched runs f and checks that none of tables changed meanwhile.
func untouched(t testing.TB, tables []string, f func()) {
	t.Helper()
	before := make([]string, len(tables))
	for i, tb := range tables {
		before[i] = snapshot(t, tb)
	}
	f()
	for i, tb := range tables {
		unchanged(t, tb, before[i])
	}
}

// allTables are the fixture's tables, for checks that nothing moved.
var allTables = []string{"api.categories", "api.items", "api.order_lines", "api.logs", "api.notes"}

// insertStatements is how many INSERT statements ran on items since reset.
func insertStatements(t testing.TB) int {
	t.Helper()
	rs := decodeRows(t, sqlJSON(t, "select n from private.insert_statements"))
	return int(rs[0]["n"].(float64))
}

func decodeRows(t testing.TB, b []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("not a JSON array of objects: %v\n%s", err, b)
	}
	return out
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// jsonEqual compares two JSON texts structurally (numbers as float64).
func jsonEqual(t testing.TB, what string, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", what, err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: the wanted value is not JSON: %v\n%s", what, err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\ngot  %s\nwant %s", what, got, want)
	}
}

// errorCase is a request that must fail with an exact error and leave
// every fixture table as it was.
type errorCase struct {
	name         string
	method, path string
	body         string
	headers      []string
	status       int
	code         string
	// want is the whole error body as JSON; empty checks only the code.
	want string
}

// runErrorCases runs each case as a subtest on a fresh fixture.
func runErrorCases(t *testing.T, s *server, cases []errorCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reset(t)
			untouched(t, allTables, func() {
				res := s.do(t, c.method, c.path, c.body, c.headers...)
				res.expectError(t, c.status, c.code)
				if c.want != "" && c.method != http.MethodHead {
					res.expectBody(t, c.want)
				}
			})
		})
	}
}

// pgtestExec runs statements as the superuser.
func pgtestExec(t testing.TB, statements string) {
	t.Helper()
	pgtest.Exec(t, superDSN, statements)
}

func itoa(n int) string { return strconv.Itoa(n) }
