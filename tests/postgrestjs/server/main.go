// Command server runs postgrest-js's own test suite (tests/postgrestjs,
// copied from supabase/postgrest-js) against pgrest, set up as that suite's
// docker-compose.yml sets up PostgREST: it starts a throwaway PostgreSQL
// (tests/pgtest), loads the suite's test/db/*.sql into a fresh database,
// serves pgrest through a real Caddy config on a free loopback port with
//
//	db_uri                 the superuser (postgres), as PGRST_DB_URI
//	db_schemas             public personal
//	db_extra_search_path   extensions
//	db_anon_role           the superuser too
//	db_plan_enabled        true
//	db_tx_end              commit-allow-override
//	db_aggregates_enabled  true
//
// runs jest on Node 22 or newer (`npx -p node@22` when the node in PATH is
// older) and stops everything again. Its exit code is jest's. The tests
// reach pgrest at PGREST_URL, where upstream's name localhost:3000 (its
// PostgREST 12) and localhost:3001 (its PostgREST 13).
//
// Run it from the module root after npm ci in tests/postgrestjs; arguments
// go to jest:
//
//	go run ./tests/postgrestjs/server
//	go run ./tests/postgrestjs/server test/rpc.test.ts
//	go run ./tests/postgrestjs/server -t 'basic select table'
//
// PGREST_TEST_DSN names a running PostgreSQL to use instead (see
// tests/pgtest); PGREST_CLIENT_KEEP=1 keeps the server running after the
// tests until interrupted.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/nodesuite"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

const (
	// suiteDir is the suite's folder, relative to the module root.
	suiteDir = "tests/postgrestjs"
	// database is made afresh for every run (dropped first when left from
	// an earlier one): the tests write to it.
	database = "pgrest_postgrestjs"
	// nodeMajor is the oldest Node.js the suite runs on.
	nodeMajor = 22
)

// fixtures are the suite's SQL files in the order its PostgreSQL image's
// entrypoint runs them.
var fixtures = []string{"test/db/00-schema.sql", "test/db/01-dummy-data.sql"}

const log = nodesuite.Logger("postgrest-js suite")

func main() {
	nodesuite.Main(log, run)
}

// run does everything and returns the exit code: jest's, or 1 when the
// setup fails, or 130 after an interrupt.
func run(ctx context.Context, root string) int {
	dir := filepath.Join(root, suiteDir)
	jest := filepath.Join(dir, "node_modules", "jest", "bin", "jest.js")
	if _, err := os.Stat(jest); err != nil {
		return log.Fail(fmt.Errorf("%w; run npm ci in %s first", err, suiteDir))
	}
	node, err := nodesuite.NodeCommand(nodeMajor, log)
	if err != nil {
		return log.Fail(err)
	}

	setupCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	// 00-schema.sql creates PostGIS in the schema extensions, which
	// StartDatabase installs.
	superDSN, _, stopDB, err := nodesuite.StartDatabase(setupCtx, log, database)
	if err != nil {
		return log.FailOrInterrupted(ctx, err)
	}
	defer stopDB()
	// Settings of the suite's PostgreSQL image (supabase/postgres) that
	// "explain with options" sees: it preloads pg_stat_statements, so
	// query identifiers are computed and EXPLAIN VERBOSE shows one, and
	// its effective_cache_size is among the settings EXPLAIN SETTINGS
	// lists.
	for _, setting := range []string{"compute_query_id = on", "effective_cache_size = '128MB'"} {
		if err := pgtest.ExecSQL(setupCtx, superDSN, "alter database "+database+" set "+setting); err != nil {
			return log.Fail(err)
		}
	}
	for _, f := range fixtures {
		sql, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return log.Fail(err)
		}
		if err := pgtest.ExecSQL(setupCtx, superDSN, string(sql)); err != nil {
			return log.Fail(fmt.Errorf("loading %s: %w", f, err))
		}
	}
	superuser, err := userOf(superDSN)
	if err != nil {
		return log.Fail(err)
	}

	logDir, err := os.MkdirTemp("", "pgrest-postgrestjs-")
	if err != nil {
		return log.Fail(err)
	}
	defer os.RemoveAll(logDir)
	logPath := filepath.Join(logDir, "caddy.log")
	baseURL, _, stopCaddy, err := nodesuite.Serve(setupCtx, log, map[string]string{
		"db_uri":                pgresttest.Quote(superDSN),
		"db_schemas":            "public personal",
		"db_extra_search_path":  "extensions",
		"db_anon_role":          superuser,
		"db_plan_enabled":       "true",
		"db_tx_end":             "commit-allow-override",
		"db_aggregates_enabled": "true",
	}, pgresttest.Options{LogFile: logPath}, "/users")
	if err != nil {
		return log.FailOrInterrupted(ctx, err)
	}
	defer stopCaddy()

	// --ci: a snapshot that does not match fails instead of being
	// written into the test files.
	results := filepath.Join(logDir, "jest.json")
	argv := append(slices.Clone(node), jest, "--runInBand", "--ci", "--json", "--outputFile="+results)
	code, err := nodesuite.Run(ctx, dir, append(argv, os.Args[1:]...), []string{"PGREST_URL=" + baseURL})
	if err != nil {
		return log.Fail(err)
	}
	if err := printCounts(results); err != nil {
		log.Printf("reading jest's results: %v", err)
		if code == 0 {
			code = 1
		}
	}
	return log.Finish(ctx, code, baseURL, logPath)
}

// userOf is the user a PostgreSQL URL logs in as.
func userOf(dsn string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil || u.User.Username() == "" {
		return "", fmt.Errorf("no user in the superuser URL")
	}
	return u.User.Username(), nil
}

// jestResults are the counts of jest's --json output.
type jestResults struct {
	NumPassedTests  int `json:"numPassedTests"`
	NumFailedTests  int `json:"numFailedTests"`
	NumPendingTests int `json:"numPendingTests"`
	NumTotalTests   int `json:"numTotalTests"`
}

// printCounts prints jest's counts as the TAP summary lines node's test
// runner ends with ("# pass N"), on the standard output where make test's
// summary (tests/testsummary) reads them; jest's own report goes to the
// standard error.
func printCounts(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var r jestResults
	if err := json.Unmarshal(data, &r); err != nil {
		return err
	}
	fmt.Printf("# tests %d\n# pass %d\n# fail %d\n# skipped %d\n",
		r.NumTotalTests, r.NumPassedTests, r.NumFailedTests, r.NumPendingTests)
	return nil
}
