// Package ops tests what an operator of pgrest sees: liveness and readiness
// probes, pgrest's endpoints in Caddy's admin API, Prometheus metrics,
// startup and failure diagnostics in the log, and who did what in the
// access log. Each test loads a real Caddy config with the admin API, a
// metrics site and a health site beside the API, as an operator would.
package ops

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

var db *pgresttest.DB

const jwtSecret = "an-operations-test-secret-of-32-characters-or-more"

func TestMain(m *testing.M) {
	db = pgresttest.MustSetUp("pgrest_ops",
		pgresttest.ReadFixture,
		pgresttest.Files("testdata/*.sql"))
	db.Run(m)
}

// authDSN is the authenticator's URL with password.
func authDSN(password string) string {
	return db.DSNFor(fixtures.Authenticator, password)
}

// site is a running Caddy config: the API, the health probes, the metrics
// and the admin API, each on its own loopback port, with Caddy's log and
// the access log in files.
type site struct {
	API, Health, Metrics, Admin string // base URLs
	Log, AccessLog              string // file paths
	Caddyfile                   string
}

// startSite loads a config whose pgrest handler has the subdirectives
// lines (db_uri first of all); it stops when the test ends.
func startSite(t *testing.T, lines ...string) *site {
	t.Helper()
	dir := t.TempDir()
	s := &site{Log: filepath.Join(dir, "caddy.log"), AccessLog: filepath.Join(dir, "access.log")}
	ports := make([]int, 4)
	for i := range ports {
		p, err := pgresttest.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = p
	}
	s.API = fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	s.Health = fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	s.Metrics = fmt.Sprintf("http://127.0.0.1:%d", ports[2])
	s.Admin = fmt.Sprintf("http://127.0.0.1:%d", ports[3])
	s.Caddyfile = fmt.Sprintf(`{
	admin 127.0.0.1:%d
	auto_https off
	persist_config off
	log {
		output file %s
		level DEBUG
	}
}
%s {
	log {
		output file %s
	}
	pgrest {
		db_schemas api
		db_anon_role web_anon
		jwt_secret %s
		%s
	}
}
%s {
	pgrest_health
}
%s {
	metrics
}
`, ports[3], pgresttest.Quote(s.Log), s.API, pgresttest.Quote(s.AccessLog), jwtSecret,
		strings.Join(lines, "\n\t\t"), s.Health, s.Metrics)
	s.load(t)
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stopping Caddy: %v", err)
		}
	})
	return s
}

// load adapts and loads the site's Caddyfile: the first time it starts
// Caddy, after that it is a config reload.
func (s *site) load(t *testing.T) {
	t.Helper()
	cfg, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(s.Caddyfile), nil)
	if err != nil {
		t.Fatalf("adapting: %v\n%s", err, s.Caddyfile)
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatalf("loading: %v\n%s", err, s.Caddyfile)
	}
}

// client bounds every request of these tests, so a hang fails the test;
// generous for a loaded machine.
var client = &http.Client{Timeout: time.Minute}

// get sends a request and returns the status and body.
func get(t *testing.T, method, url string, headers ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(body)
}

// eventually polls cond every 50ms until it holds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitReady waits until the health site's /ready is 200.
func (s *site) waitReady(t *testing.T) {
	t.Helper()
	eventually(t, 30*time.Second, "/ready is not 200", func() bool {
		code, _ := get(t, http.MethodGet, s.Health+"/ready")
		return code == http.StatusOK
	})
}

func token(t *testing.T, claims jwt.MapClaims) string {
	t.Helper()
	return pgresttest.Token(t, jwtSecret, claims)
}

// logLines returns the JSON log lines of path whose "msg" is msg.
func logLines(t *testing.T, path, msg string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil && line["msg"] == msg {
			out = append(out, line)
		}
	}
	return out
}

// superExec runs SQL as the superuser.
func superExec(t *testing.T, sql string) {
	t.Helper()
	pgtest.Exec(t, db.SuperDSN, sql)
}

// site starts a site whose pgrest handler logs in with the fixture's
// password, plus lines, and waits until it is ready.
func startReadySite(t *testing.T, lines ...string) *site {
	t.Helper()
	s := startSite(t, append([]string{"db_uri " + pgresttest.Quote(authDSN(fixtures.AuthenticatorPassword))}, lines...)...)
	s.waitReady(t)
	return s
}

// keys lists a map's keys, sorted, for messages.
func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
