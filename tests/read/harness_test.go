// Package read holds HTTP tests of pgrest's read API against the fixture
// tests/fixtures/read.sql, loaded once into a throwaway cluster.
package read

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/jackc/pgx/v5"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
	_ "github.com/pgrest/caddy-pgrest/caddymodule"
	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// Shared by every test of this package. The fixture's data is read-only:
// no test may change it.
var (
	cluster *pgtest.Cluster
	// superDSN connects as a superuser to the fixture database.
	superDSN string
	// authDSN connects as the authenticator.
	authDSN string
)

// jwtSecret is the HS256 passphrase every default server verifies with.
const jwtSecret = "pgrest-read-tests-secret-long-enough-0123456789ab"

// TestMain starts one throwaway cluster, makes the database and loads
// fixtures.ReadSQL into it.
func TestMain(m *testing.M) {
	cluster = pgtest.MustStart()
	code := func() int {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		dsn, err := cluster.NewDatabase(ctx, "pgrest_read")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		superDSN = dsn
		authDSN = pgtest.DSNFor(dsn, fixtures.Authenticator, fixtures.AuthenticatorPassword)
		if err := pgtest.ExecSQL(ctx, superDSN, fixtures.ReadSQL); err != nil {
			fmt.Fprintf(os.Stderr, "loading read.sql: %v\n", err)
			return 1
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
		"db_uri":                authDSN,
		"db_schemas":            strings.Join(fixtures.ExposedSchemas(), " "),
		"db_anon_role":          fixtures.AnonRole,
		"jwt_secret":            jwtSecret,
		"db_aggregates_enabled": "true",
	}
}

// startServer loads a real Caddy config (adapted from a Caddyfile) serving
// pgrest on a free loopback port. Each argument is a subdirective line
// ("db_max_rows 10") replacing the default of the same name; "-name"
// removes a default. Caddy runs one config at a time: starting a server
// stops the one running, so tests of this package do not run in parallel
// and start one server per top-level test. The server stops when the test
// ends.
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
// and returns the error body (nil for HEAD).
func (r *response) expectError(t testing.TB, status int, code string) map[string]any {
	t.Helper()
	r.expectStatus(t, status)
	if ps := r.Header.Get("Proxy-Status"); ps != "pgrest; error="+code {
		t.Errorf("Proxy-Status %q, want %q", ps, "pgrest; error="+code)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if len(r.Body) == 0 { // HEAD
		return nil
	}
	e := r.Error(t)
	if e["code"] != code {
		t.Fatalf("code %v, want %s; body %s", e["code"], code, r.Body)
	}
	return e
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

// head is do for HEAD.
func (s *server) head(t testing.TB, path string, headers ...string) *response {
	t.Helper()
	return s.do(t, http.MethodHead, path, "", headers...)
}

// rows checks the response is 200 or 206 with a JSON array of objects and
// returns it.
func rows(t testing.TB, res *response) []map[string]any {
	t.Helper()
	if res.Status != http.StatusOK && res.Status != http.StatusPartialContent {
		t.Fatalf("status %d, want 200 or 206; body %s", res.Status, res.Body)
	}
	var out []map[string]any
	if err := json.Unmarshal(res.Body, &out); err != nil {
		t.Fatalf("body is not a JSON array of objects: %v\n%s", err, res.Body)
	}
	return out
}

// ids is rows' "id" values, in order.
func ids(t testing.TB, res *response) []int {
	t.Helper()
	rs := rows(t, res)
	out := make([]int, len(rs))
	for i, r := range rs {
		f, ok := r["id"].(float64)
		if !ok {
			t.Fatalf("row %d has no numeric id: %v", i, r)
		}
		out[i] = int(f)
	}
	return out
}

// sqlRows runs query as the superuser and returns its rows as JSON objects
// (through json_agg), so they compare with rows of a response.
func sqlRows(t testing.TB, query string, args ...any) []map[string]any {
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
		t.Fatalf("sqlRows: %v\n%s", err, query)
	}
	var out []map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
