// Package rpc holds HTTP tests of pgrest's function calls (/rpc/<name>)
// against demo/schema.sql plus the fixture testdata/*.sql, loaded once into a
// throwaway cluster.
package rpc

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
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
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
	// jwtSecret is the HS256 passphrase every default server verifies with,
	// and the database's app.jwt_secret (set by testdata/10_rpc.sql) that
	// api.login signs with.
	jwtSecret = "pgrest-rpc-tests-secret-long-enough-0123456789"
)

// TestMain starts one throwaway cluster, makes the database and loads
// the demo schema (roles, api.todos, the login pattern), then
// testdata/*.sql in name order.
func TestMain(m *testing.M) {
	cluster = pgtest.MustStart()
	code := func() int {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		dsn, err := cluster.NewDatabase(ctx, "pgrest_rpc")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		superDSN = dsn
		authDSN = pgtest.DSNFor(dsn, "authenticator", authenticatorPassword)
		files, _ := filepath.Glob("testdata/*.sql")
		sort.Strings(files)
		files = append([]string{filepath.Join("..", "..", "demo", "schema.sql")}, files...)
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
// removes a default. Only one config runs at a time, so these tests do
// not run in parallel. The server stops when the test ends.
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
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body, failing t when it is not JSON.
func (r *response) JSON(t testing.TB) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, r.Body)
	}
	return v
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

// do sends a request. headers alternate name, value.
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
		req.Header.Set(headers[i], headers[i+1])
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
	return &response{Status: res.StatusCode, Header: res.Header, Body: b}
}

// get is do for GET without a body.
func (s *server) get(t testing.TB, path string, headers ...string) *response {
	t.Helper()
	return s.do(t, http.MethodGet, path, "", headers...)
}

// bearer is the Authorization header pair for a token.
func bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

// sql runs statements as the superuser, for setting up and checking state.
func sql(t testing.TB, statements string) {
	t.Helper()
	pgtest.Exec(t, superDSN, statements)
}

// call is one request and the whole response it must get.
type call struct {
	name    string // a sentence: what pgrest does
	method  string
	path    string
	body    string
	headers []string // name, value, ...
	status  int
	// want is the body as JSON, compared as a value (spacing and key order
	// aside); "" expects no body.
	want string
	// header holds response headers to check; "" expects the header absent.
	header map[string]string
}

// runCalls runs each call as a subtest against s.
func runCalls(t *testing.T, s *server, calls []call) {
	t.Helper()
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			s.do(t, c.method, c.path, c.body, c.headers...).expect(t, c.status, c.want, c.header)
		})
	}
}

// expect checks the status, the body (as JSON, or empty when want is ""),
// the JSON Content-Type of a body, Proxy-Status on errors, and header.
func (r *response) expect(t testing.TB, status int, want string, header map[string]string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; body %s", r.Status, status, r.Body)
	}
	if want == "" {
		if len(r.Body) != 0 {
			t.Errorf("body %s, want none", r.Body)
		}
	} else {
		var w any
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatalf("the test's want is not JSON: %v\n%s", err, want)
		}
		got := r.JSON(t)
		if !reflect.DeepEqual(got, w) {
			t.Errorf("body\n%s\nwant\n%s", r.Body, want)
		}
		if _, ok := header["Content-Type"]; !ok {
			if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q, want application/json; charset=utf-8", ct)
			}
		}
		if status >= 400 {
			e := r.Error(t)
			if ps := r.Header.Get("Proxy-Status"); ps != fmt.Sprintf("pgrest; error=%v", e["code"]) {
				t.Errorf("Proxy-Status %q, want pgrest; error=%v", ps, e["code"])
			}
		}
	}
	names := make([]string, 0, len(header))
	for n := range header {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		got, present := r.Header.Get(n), len(r.Header.Values(n)) > 0
		switch {
		case header[n] == "" && present:
			t.Errorf("header %s: %q, want none", n, got)
		case header[n] != "" && got != header[n]:
			t.Errorf("header %s: %q, want %q", n, got, header[n])
		}
	}
}

// errorJSON is the error body of the contract.
func errorJSON(code, message string, details, hint any) string {
	b, _ := json.Marshal(map[string]any{"code": code, "message": message, "details": details, "hint": hint})
	return string(b)
}

// sqlInt runs a query as the superuser and returns its one integer.
func sqlInt(t testing.TB, query string, args ...any) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, superDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int64
	if err := conn.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// forgetWrites deletes the books tests add, when the test ends.
func forgetWrites(t testing.TB) {
	t.Cleanup(func() { sql(t, `delete from api.books where id > 5`) })
}
