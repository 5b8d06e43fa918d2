// Package write holds HTTP tests of pgrest's write API (POST, PUT, PATCH,
// DELETE) against the fixture testdata/*.sql, loaded once into a throwaway
// cluster. Every test starts from the fixture's seed rows (reset) and every
// error path checks that the tables it touches are unchanged.
package write

import (
	"encoding/json"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The test database, shared by every test of this package: superDSN
// connects as a superuser, authDSN as the authenticator.
var superDSN, authDSN string

// jwtSecret is the HS256 passphrase every default server verifies with.
const jwtSecret = "pgrest-write-tests-secret-long-enough-0123456789"

// TestMain loads the database's settings (fixtures.DatabaseSettingsSQL:
// constraint errors carry the failing row in their details, so timestamps
// must print alike to compare them exactly), the domains with data
// representations (fixtures.RepresentationDomainsSQL), then testdata/*.sql
// in name order, into a fresh database of a throwaway cluster and runs the
// tests.
func TestMain(m *testing.M) {
	db := pgresttest.MustSetUp("pgrest_write",
		pgresttest.SQL("the database's settings", fixtures.DatabaseSettingsSQL),
		pgresttest.SQL("the representation domains", fixtures.RepresentationDomainsSQL),
		pgresttest.Files("testdata/*.sql"))
	superDSN, authDSN = db.SuperDSN, db.AuthenticatorDSN()
	db.Run(m)
}

// startServer serves pgrest from a real Caddy config on a free loopback
// port: schema api, role web_anon and jwtSecret, changed by lines: "db_tx_end
// rollback" replaces the setting of the same name, "-name" removes it (see
// pgresttest.Start). Caddy runs one config at a time, so tests of this
// package do not run in parallel and start one server per top-level test.
// The server stops when the test ends.
func startServer(t testing.TB, lines ...string) *server {
	t.Helper()
	return &server{pgresttest.Start(t, map[string]string{
		"db_uri":       authDSN,
		"db_schemas":   "api",
		"db_anon_role": "web_anon",
		"jwt_secret":   jwtSecret,
	}, lines...)}
}

// server and response are pgresttest's, with this package's request
// helper do and the checks below.
type (
	server   struct{ *pgresttest.Server }
	response struct{ *pgresttest.Response }
)

// do sends a request with a JSON body (when body is not empty). headers
// alternate name, value: a name given twice gets both values; an empty
// value removes the header.
func (s *server) do(t testing.TB, method, path, body string, headers ...string) *response {
	t.Helper()
	req, err := s.Request(method, path, body)
	if err != nil {
		t.Fatal(err)
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
	res, err := pgresttest.Send(nil, req)
	if err != nil {
		t.Fatal(err)
	}
	return &response{res}
}

// expectStatus fails t unless the response has status.
func (r *response) expectStatus(t testing.TB, status int) {
	t.Helper()
	r.ExpectStatus(t, status)
}

// expectError checks status, code and the error headers of the contract,
// and returns the error body (nil for HEAD, which must have none).
func (r *response) expectError(t testing.TB, status int, code string) map[string]any {
	t.Helper()
	return r.ExpectError(t, status, code)
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

// asUser is the Authorization header pair of a token for role webuser.
func asUser(t testing.TB) []string {
	t.Helper()
	return pgresttest.Bearer(pgresttest.Token(t, jwtSecret, jwt.MapClaims{"role": "webuser"}))
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
	return pgresttest.SQLJSON(t, superDSN, query, args...)
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

// writeCase is a request that must succeed: the whole response it gets
// and what the tables hold afterwards.
type writeCase struct {
	name         string
	method, path string
	body         string
	headers      []string // name, value, ... (see server.do)
	status       int
	contentRange string   // the Content-Range header; "" expects none
	location     string   // the Location header; "" expects none
	applied      []string // Preference-Applied, in any order; none expects no header
	// want is the body as JSON; "" expects no body and no Content-Type.
	// An object comes as application/vnd.pgrst.object+json, an array as
	// application/json. The rows of a PATCH or DELETE, whose order
	// PostgreSQL does not fix, are compared in id order.
	want string
	// table, when set, is a query run afterwards as the superuser and rows
	// its rows (a JSON array).
	table, rows string
	// unchanged says the write keeps nothing: every fixture table is as
	// it was before the request.
	unchanged bool
}

// runWriteCases runs each case as a subtest on a fresh fixture: reset, the
// statements setup (when not empty), the request and its checks, then
// after (when not nil) for checks every case shares.
func runWriteCases(t *testing.T, s *server, setup string, cases []writeCase, after func(t *testing.T)) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reset(t)
			if setup != "" {
				pgtestExec(t, setup)
			}
			tables := []string(nil)
			if c.unchanged {
				tables = allTables
			}
			untouched(t, tables, func() { c.check(t, s.do(t, c.method, c.path, c.body, c.headers...)) })
			if c.table != "" {
				expectRows(t, c.table, c.rows)
			}
			if after != nil {
				after(t)
			}
		})
	}
}

// check compares the response with the case.
func (c writeCase) check(t *testing.T, res *response) {
	t.Helper()
	res.expectStatus(t, c.status)
	res.expectHeader(t, "Content-Range", c.contentRange)
	res.expectHeader(t, "Location", c.location)
	res.expectApplied(t, c.applied...)
	switch {
	case c.want == "":
		res.expectNoBody(t)
	case c.want[0] == '{':
		res.expectHeader(t, "Content-Type", "application/vnd.pgrst.object+json; charset=utf-8")
		res.expectBody(t, c.want)
	default:
		res.expectHeader(t, "Content-Type", "application/json; charset=utf-8")
		if c.method == http.MethodPatch || c.method == http.MethodDelete {
			jsonEqual(t, "body (in id order)", []byte(sortedByID(t, res.Body)), c.want)
		} else {
			res.expectBody(t, c.want)
		}
	}
}

// sortedByID decodes rows and orders them by id, for representations of
// writes whose row order PostgreSQL does not fix.
func sortedByID(t testing.TB, b []byte) string {
	t.Helper()
	rows := decodeRows(t, b)
	id := func(i int) float64 {
		n, ok := rows[i]["id"].(float64)
		if !ok {
			t.Fatalf("row %v has no numeric id to order by", rows[i])
		}
		return n
	}
	sort.SliceStable(rows, func(i, j int) bool { return id(i) < id(j) })
	out, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
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
