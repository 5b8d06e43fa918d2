// Command server runs pgrest's client suites: it starts a throwaway
// PostgreSQL (tests/pgtest), loads the read API fixture (tests/fixtures) and
// the suites' tests/client/fixture.sql, serves pgrest through a real Caddy
// config on a free loopback port, runs a suite's tests with Node's test
// runner and stops everything again. Its exit code is node's.
//
// There are two suites:
//
//	client      tests/client: postgrest-js 1.x on Node 20 or newer, pgrest
//	            at the site's root
//	supabasejs  tests/supabasejs: supabase-js 2.x and the current
//	            postgrest-js on Node 22 or newer (`npx -p node@22` when
//	            the node in PATH is older), pgrest under /rest/v1 as
//	            Supabase lays it out
//
// PGREST_CLIENT_SUITE names the suite (default client); test files named
// as arguments pick theirs. Run it from the module root (make test-client
// runs both, after npm ci in each folder):
//
//	go run ./tests/client/server                        # every tests/client/*.test.mjs
//	go run ./tests/client/server tests/client/rpc.test.mjs
//	go run ./tests/client/server --test-reporter=spec   # more arguments for node --test
//	PGREST_CLIENT_SUITE=supabasejs go run ./tests/client/server
//
// Arguments go to node --test; when none of them names a file, every
// *.test.mjs of the suite's folder runs. The tests get the environment
//
//	PGREST_URL          pgrest's base URL (http://127.0.0.1:<port>, then
//	                    /rest/v1 for supabasejs)
//	PGREST_SUPABASE_URL the site's URL, for supabase-js's createClient
//	PGREST_JWT_SECRET   the HS256 secret the server verifies tokens with
//	PGREST_USER_TOKEN   a token signed with it for the role webuser (sub "client-suite")
//	PGREST_ANON_KEY     a token signed with it for the role web_anon, as a
//	                    Supabase anon key
//	PGREST_SECOND_NODE_URL for supabasejs, the site's URL on a second pgrest
//	                    node (another realtime node on the same database)
//	PGREST_DB_URL       for supabasejs, a superuser URL of the database, for
//	                    writes through psql
//	PGREST_CONTROL_URL  for supabasejs, where a POST of /restart-postgres
//	                    restarts PostgreSQL (fast shutdown) and answers once
//	                    it accepts connections again (see control.go)
//
// Set PGREST_TEST_DSN to a superuser URL to use a running PostgreSQL instead of
// a throwaway one (see tests/pgtest); PGREST_CLIENT_KEEP=1 keeps the server
// running after the tests until interrupted, for poking at it by hand.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/nodesuite"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

const (
	// database is the one database the suite reads; it is made afresh
	// (dropped first when left from an earlier run).
	database = "pgrest_client"
	// jwtSecret is the HS256 passphrase of the server: 48 characters.
	jwtSecret = "pgrest-client-suite-secret-long-enough-012345678"
	// userSubject is the sub claim of PGREST_USER_TOKEN.
	userSubject = "client-suite"
	// clientDir is the first suite's folder, relative to the module root;
	// its fixture.sql serves both suites.
	clientDir = "tests/client"
)

// A suite is a folder of *.test.mjs files and how they are run.
type suite struct {
	// dir is the folder, relative to the module root.
	dir string
	// mount is the path pgrest is served under; "" for the site's root.
	mount string
	// nodeMajor is the oldest Node.js major version the suite runs on.
	nodeMajor int
	// directives are pgrest subdirective lines the suite needs beyond the
	// common ones (see pgresttest.Directives), such as "db_plan_enabled
	// true" for postgrest-js's .explain().
	directives []string
	// realtime serves the realtime socket with postgres_changes: the
	// cluster runs with wal_level = logical and the realtime fixture
	// (fixtures.RealtimeSQL) is loaded.
	realtime bool
}

var suites = map[string]suite{
	"client": {dir: clientDir, nodeMajor: 20},
	"supabasejs": {dir: "tests/supabasejs", mount: "/rest/v1", nodeMajor: 22, realtime: true, directives: []string{
		"realtime_enabled true", "realtime_publication pgrest_realtime", "realtime_node_name supabasejs"}},
}

// pickSuite is the suite of the test files in args, else the one
// PGREST_CLIENT_SUITE names, else client.
func pickSuite(args []string) (suite, error) {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		for _, s := range suites {
			if filepath.Dir(filepath.Clean(a)) == s.dir {
				return s, nil
			}
		}
	}
	name := os.Getenv("PGREST_CLIENT_SUITE")
	if name == "" {
		name = "client"
	}
	s, ok := suites[name]
	if !ok {
		return suite{}, fmt.Errorf("PGREST_CLIENT_SUITE=%s: no such suite (client, supabasejs)", name)
	}
	return s, nil
}

func main() {
	nodesuite.Main(log, run)
}

// run does everything and returns the exit code: node's, or 1 when the
// setup fails, or 130 after an interrupt.
func run(ctx context.Context, root string) int {
	st, err := pickSuite(os.Args[1:])
	if err != nil {
		return fail(err)
	}
	node, err := nodesuite.NodeCommand(st.nodeMajor, log)
	if err != nil {
		return fail(err)
	}
	sqlPath := filepath.Join(root, clientDir, "fixture.sql")
	suiteSQL, err := os.ReadFile(sqlPath)
	if err != nil {
		return fail(err)
	}

	setupCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	// The fixture's GeoJSON tests need PostGIS, which StartDatabase
	// installs.
	superDSN, cluster, stopDB, err := nodesuite.StartDatabase(setupCtx, log, database, pgtest.Options{LogicalReplication: st.realtime})
	if err != nil {
		return log.FailOrInterrupted(ctx, err)
	}
	defer stopDB()
	if err := pgtest.ExecSQL(setupCtx, superDSN, fixtures.ReadSQL); err != nil {
		return fail(fmt.Errorf("loading tests/fixtures/read.sql: %w", err))
	}
	if err := pgtest.ExecSQL(setupCtx, superDSN, string(suiteSQL)); err != nil {
		return fail(fmt.Errorf("loading %s: %w", filepath.Join(clientDir, "fixture.sql"), err))
	}
	if st.realtime {
		if err := pgtest.ExecSQL(setupCtx, superDSN, fixtures.RealtimeSQL); err != nil {
			return fail(fmt.Errorf("loading the realtime fixture: %w", err))
		}
	}
	authDSN := pgtest.DSNFor(superDSN, fixtures.Authenticator, fixtures.AuthenticatorPassword)

	logDir, err := os.MkdirTemp("", "pgrest-client-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(logDir)
	logPath := filepath.Join(logDir, "caddy.log")
	opts := pgresttest.Options{LogFile: logPath, Mount: st.mount}
	secondURL := ""
	if st.realtime {
		// A realtime suite gets a second node on another port: another
		// realtime node on the same database (its own listener and slot),
		// for clients of one channel on two nodes.
		port, err := pgresttest.FreePort()
		if err != nil {
			return fail(err)
		}
		opts.Sites = pgresttest.Site(port, pgresttest.Directives(directives(authDSN, st), "realtime_node_name supabasejs_second"), st.mount)
		secondURL = fmt.Sprintf("http://127.0.0.1:%d", port)
	}
	baseURL, siteURL, stopCaddy, err := nodesuite.Serve(setupCtx, log, directives(authDSN, st), opts, "/clients")
	if err != nil {
		return log.FailOrInterrupted(ctx, err)
	}
	defer stopCaddy()

	token, err := userToken()
	if err != nil {
		return fail(err)
	}
	anonKey, err := anonToken()
	if err != nil {
		return fail(err)
	}
	env := []string{
		"PGREST_URL=" + baseURL,
		"PGREST_SUPABASE_URL=" + siteURL,
		"PGREST_JWT_SECRET=" + jwtSecret,
		"PGREST_USER_TOKEN=" + token,
		"PGREST_ANON_KEY=" + anonKey,
		"PGREST_SECOND_NODE_URL=" + secondURL,
	}
	if st.realtime {
		controlURL, stopControl, err := serveControl(cluster)
		if err != nil {
			return fail(err)
		}
		defer stopControl()
		env = append(env, "PGREST_DB_URL="+superDSN, "PGREST_CONTROL_URL="+controlURL)
	}
	code := runNode(ctx, root, node, st, os.Args[1:], env)
	return log.Finish(ctx, code, baseURL, logPath)
}

// directives are the pgrest subdirectives of the suite st, with authDSN:
// pgrest as a user would configure it over the read API fixture. Caddy's
// log and the access log go to a file, not to the terminal, where they
// would bury node's report; run prints the log's end when tests fail.
func directives(authDSN string, st suite) map[string]string {
	return pgresttest.Directives(map[string]string{
		"db_uri":                pgresttest.Quote(authDSN),
		"db_schemas":            strings.Join(fixtures.ExposedSchemas(), " "),
		"db_anon_role":          fixtures.AnonRole,
		"db_aggregates_enabled": "true",
		"db_plan_enabled":       "true",
		"db_plan_analyze_roles": fixtures.AnonRole,
		"jwt_secret":            jwtSecret,
	}, st.directives...)
}

// userToken is an HS256 token for the role webuser, valid for a day.
func userToken() (string, error) {
	now := time.Now()
	claims := jwt.MapClaims{
		"role": fixtures.UserRole,
		"sub":  userSubject,
		"iat":  now.Unix(),
		"exp":  now.Add(24 * time.Hour).Unix(),
	}
	return pgresttest.SignHS256(jwtSecret, claims)
}

// anonToken is an HS256 token for the anonymous role, as Supabase's anon
// key is one for its anon role: supabase-js sends it as apikey and bearer.
func anonToken() (string, error) {
	now := time.Now()
	return pgresttest.SignHS256(jwtSecret, jwt.MapClaims{
		"role": fixtures.AnonRole,
		"iat":  now.Unix(),
		"exp":  now.Add(24 * time.Hour).Unix(),
	})
}

// runNode runs node --test in the module root with the suite's environment,
// its output going straight to ours, and returns its exit code. The TAP
// reporter is the default (node would pick spec on a terminal), so the run
// always ends with the "# pass N" and "# fail N" summary lines. A
// realtime suite's files run one after the other: one of its tests
// restarts PostgreSQL, which would break another file's requests.
func runNode(ctx context.Context, root string, node []string, st suite, args, env []string) int {
	dir := st.dir
	nodeArgs := []string{"--test"}
	if st.realtime {
		nodeArgs = append(nodeArgs, "--test-concurrency=1")
	}
	if !hasReporter(args) {
		nodeArgs = append(nodeArgs, "--test-reporter=tap")
	}
	nodeArgs = append(nodeArgs, args...)
	if !namesFile(args) {
		// Named one by one: node 20 and node 22 read a folder argument
		// differently.
		files, err := filepath.Glob(filepath.Join(dir, "*.test.mjs"))
		if err != nil {
			return fail(err)
		}
		if len(files) == 0 {
			return fail(fmt.Errorf("no %s/*.test.mjs to run", dir))
		}
		sort.Strings(files)
		nodeArgs = append(nodeArgs, files...)
	}
	code, err := nodesuite.Run(ctx, root, append(slices.Clone(node), nodeArgs...), env)
	if err != nil {
		return fail(err)
	}
	return code
}

func hasReporter(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "--test-reporter") {
			return true
		}
	}
	return false
}

// namesFile says whether an argument is a test file rather than an option.
// Options taking a separate value (--test-name-pattern x) count too, so
// their value must be written with "=".
func namesFile(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return true
		}
	}
	return false
}

// log prints the launcher's lines.
const log = nodesuite.Logger("client suite")

func logf(format string, args ...any) { log.Printf(format, args...) }

func fail(err error) int { return log.Fail(err) }
