// Package pgtest gives pgrest's integration tests a throwaway PostgreSQL
// cluster: one per test binary, started in TestMain, with a fresh database per
// test package or test.
//
//	var pg *pgtest.Cluster
//
//	func TestMain(m *testing.M) {
//		pg = pgtest.MustStart()
//		pg.Run(m)
//	}
//
//	func TestSomething(t *testing.T) {
//		dsn := pg.CreateDatabase(t, "executor_something")
//		pgtest.Exec(t, dsn, fixtureSQL)
//		app := pgtest.DSNFor(dsn, "authenticator", "secret")
//		...
//	}
//
// The cluster is made by scripts/pg.sh in a temporary folder on a free port;
// it listens on 127.0.0.1 with password (scram-sha-256) authentication. When
// PGREST_TEST_DSN holds a superuser URL, that server is used instead and
// nothing is started or stopped. Roles are cluster-wide, so fixtures shared
// with such a server should create roles only when they are absent.
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// EnvDSN names the environment variable that points the tests at an
// already-running server (a superuser URL) instead of a throwaway cluster.
const EnvDSN = "PGREST_TEST_DSN"

// tempPattern names the temporary folders of clusters, so that clusters left
// behind by a crashed test binary can be found and removed.
const tempPattern = "pgrest-pgtest-"

// Cluster is a running PostgreSQL server for one test binary.
type Cluster struct {
	dsn    string // superuser URL
	script string // scripts/pg.sh; empty when the server is not ours
	dir    string // temporary folder holding the cluster; empty when not ours
	port   string // the port it listens on, when ours

	mu        sync.Mutex
	databases []string // made by NewDatabase, dropped by Stop
	// bouncerPort is the port of the cluster's PgBouncer, once
	// StartPgBouncer started it.
	bouncerPort string
	// replicas are the streaming replicas StartReplica made; Stop
	// destroys them before the cluster.
	replicas []*Replica
}

// MustStart is Start for TestMain: on failure it prints why and exits.
func MustStart() *Cluster {
	c, err := Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		os.Exit(1)
	}
	return c
}

// Start starts a throwaway cluster, or returns the server named by
// PGREST_TEST_DSN.
func Start() (*Cluster, error) { return StartWith(Options{}) }

// Options are what a test binary needs of its cluster beyond the
// defaults of scripts/pg.sh.
type Options struct {
	// LogicalReplication sets wal_level = logical, which logical
	// replication slots (the realtime change feed) need. It takes a
	// restart, so only the packages that need it pay for it. A server
	// named by PGREST_TEST_DSN must already have it.
	LogicalReplication bool
}

// MustStartWith is StartWith for TestMain: on failure it prints why and
// exits.
func MustStartWith(opts Options) *Cluster {
	c, err := StartWith(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		os.Exit(1)
	}
	return c
}

// StartWith is Start with options.
func StartWith(opts Options) (*Cluster, error) {
	c, err := start()
	if err != nil || !opts.LogicalReplication {
		return c, err
	}
	if err := c.enableLogical(); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// enableLogical sets wal_level = logical (ALTER SYSTEM, then a restart)
// on a throwaway cluster, and checks it on a server that is not ours.
func (c *Cluster) enableLogical() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if c.dir != "" {
		if err := ExecSQL(ctx, c.dsn, "alter system set wal_level = logical"); err != nil {
			return fmt.Errorf("pgtest: setting wal_level: %w", err)
		}
		if err := c.Restart("fast"); err != nil {
			return err
		}
	}
	conn, err := pgx.Connect(ctx, c.dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	var level string
	if err := conn.QueryRow(ctx, "show wal_level").Scan(&level); err != nil {
		return err
	}
	if level != "logical" {
		return fmt.Errorf("pgtest: the server has wal_level %s; logical replication needs logical", level)
	}
	return nil
}

func start() (*Cluster, error) {
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		return &Cluster{dsn: dsn}, nil
	}
	script, err := findScript()
	if err != nil {
		return nil, err
	}
	removeStale(script)

	dir, err := os.MkdirTemp("", tempPattern)
	if err != nil {
		return nil, err
	}
	// MkdirTemp makes the folder 0700; the server may run as another user
	// (postgres, when we are root) and must be able to enter it.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	pid := []byte(strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), pid, 0o644); err != nil {
		return nil, err
	}
	c := &Cluster{script: script, dir: dir}

	// The free port is only free when we look; another test binary may take
	// it before the server binds it, so a failed start is retried.
	var lastErr error
	for range 3 {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		if _, err := c.run("start", c.dataDir(), port); err != nil {
			lastErr = err
			continue
		}
		out, err := c.run("dsn", c.dataDir(), port)
		if err != nil {
			lastErr = err
			break
		}
		c.dsn = strings.TrimSpace(out)
		c.port = port
		return c, nil
	}
	c.Stop()
	return nil, lastErr
}

// Stop drops the databases NewDatabase made and, when the cluster is ours,
// stops it and deletes its files.
func (c *Cluster) Stop() {
	if c.dir == "" {
		c.mu.Lock()
		dbs := c.databases
		c.databases = nil
		c.mu.Unlock()
		for _, name := range dbs {
			if err := c.dropDatabase(name); err != nil {
				fmt.Fprintln(os.Stderr, "pgtest:", err)
			}
		}
		return
	}
	c.mu.Lock()
	replicas := c.replicas
	c.replicas = nil
	c.mu.Unlock()
	for _, r := range replicas {
		if err := r.destroy(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
	if out, err := c.run("destroy", c.dataDir()); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: %v\n%s", err, out)
	}
	os.RemoveAll(c.dir)
}

// Run is the end of a TestMain: it runs the tests, then runs after (what
// the package started beside the cluster), in order, stops the cluster and
// exits with the tests' code. A stop deferred in TestMain would never run:
// os.Exit skips deferred calls, and a process the package started would
// outlive it.
func (c *Cluster) Run(m *testing.M, after ...func()) {
	code := m.Run()
	for _, stop := range after {
		stop()
	}
	c.Stop()
	os.Exit(code)
}

// Abort is TestMain's way out when setting up beside the cluster failed:
// it prints what failed and why, stops the cluster and exits 1.
func (c *Cluster) Abort(what string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
	c.Stop()
	os.Exit(1)
}

// ErrNotOurs is Restart's error for a server named by PGREST_TEST_DSN,
// which the tests did not start and do not stop.
var ErrNotOurs = errors.New("pgtest: the server is not a throwaway cluster of the tests (PGREST_TEST_DSN)")

// Restart stops the cluster in mode (pg_ctl's smart, fast or immediate;
// immediate is a crash, recovered at start) and starts it again on the
// same port, for fault-injection tests. Connections to it break.
func (c *Cluster) Restart(mode string) error {
	if c.dir == "" {
		return ErrNotOurs
	}
	if out, err := c.run("stop", c.dataDir(), mode); err != nil {
		return fmt.Errorf("%w\n%s", err, out)
	}
	if out, err := c.run("start", c.dataDir(), c.port); err != nil {
		return fmt.Errorf("%w\n%s", err, out)
	}
	return nil
}

// LogFile is the path of the server's log ("" when the cluster is not
// ours), for tests that count what the server logged (log_connections).
func (c *Cluster) LogFile() string {
	if c.dir == "" {
		return ""
	}
	return filepath.Join(c.dataDir(), "log", "postgresql.log")
}

// SuperuserDSN returns a URL that connects as a superuser to the database
// postgres.
func (c *Cluster) SuperuserDSN() string { return c.dsn }

// CreateDatabase makes a fresh database called name (dropping any left from an
// earlier run), drops it when t's test and subtests are done, and returns a
// superuser URL for it. Names are lowercase letters, digits and underscores.
func (c *Cluster) CreateDatabase(t testing.TB, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dsn, err := c.createDatabase(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.dropDatabase(name); err != nil {
			t.Error(err)
		}
	})
	return dsn
}

// NewDatabase is CreateDatabase for TestMain, where there is no testing.TB:
// the database lives until Stop.
func (c *Cluster) NewDatabase(ctx context.Context, name string) (string, error) {
	dsn, err := c.createDatabase(ctx, name)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	c.databases = append(c.databases, name)
	c.mu.Unlock()
	return dsn, nil
}

var databaseName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

func (c *Cluster) createDatabase(ctx context.Context, name string) (string, error) {
	if !databaseName.MatchString(name) {
		return "", fmt.Errorf("pgtest: database name %q: use lowercase letters, digits and _", name)
	}
	// Two calls: a multi-statement string runs as one transaction, and
	// neither statement may run inside one.
	for _, sql := range []string{"drop database if exists " + name + " with (force)", "create database " + name} {
		if err := ExecSQL(ctx, c.dsn, sql); err != nil {
			return "", fmt.Errorf("pgtest: creating database %s: %w", name, err)
		}
	}
	return withDatabase(c.dsn, name), nil
}

func (c *Cluster) dropDatabase(name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := ExecSQL(ctx, c.dsn, "drop database if exists "+name+" with (force)"); err != nil {
		return fmt.Errorf("pgtest: dropping database %s: %w", name, err)
	}
	return nil
}

// Exec runs sql, which may hold several statements, and fails t on error.
// Fixtures go through the simple query protocol: the statements run as one
// transaction unless they hold their own BEGIN/COMMIT, and anything psql would
// run works except backslash commands and statements that refuse to run in a
// transaction (CREATE DATABASE, VACUUM).
func Exec(t testing.TB, dsn, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := ExecSQL(ctx, dsn, sql); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
}

// ExecSQL is Exec returning the error; the statements after a failing one do
// not run. A database error is a *pgconn.PgError.
func ExecSQL(ctx context.Context, dsn, sql string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.PgConn().Exec(ctx, sql).ReadAll()
	return err
}

// Connect connects to dsn within 30 seconds, failing t on error; the
// connection closes when t's test ends.
func Connect(t testing.TB, dsn string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// SQLState is the SQLSTATE of a database error (a *pgconn.PgError), and ""
// for any other error or none.
func SQLState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// DSNFor returns dsn with its user and password replaced, for connecting as
// the authenticator or another login role. dsn is a URL
// (postgres://...) or a keyword/value string (host=... user=...).
func DSNFor(dsn, user, password string) string {
	if u, ok := parseURL(dsn); ok {
		u.User = url.UserPassword(user, password)
		return u.String()
	}
	return dsn + " user=" + quoteValue(user) + " password=" + quoteValue(password)
}

func withDatabase(dsn, name string) string {
	if u, ok := parseURL(dsn); ok {
		u.Path = "/" + name
		u.RawPath = ""
		return u.String()
	}
	return dsn + " dbname=" + quoteValue(name)
}

func parseURL(dsn string) (*url.URL, bool) {
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		return nil, false
	}
	u, err := url.Parse(dsn)
	return u, err == nil
}

// quoteValue quotes a keyword/value connection string value; a later
// keyword wins over an earlier one, which DSNFor relies on.
func quoteValue(v string) string {
	v = strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v)
	return "'" + v + "'"
}

func (c *Cluster) dataDir() string { return filepath.Join(c.dir, "data") }

// run runs scripts/pg.sh and returns its output; the output is in the error
// too, because it says why a start failed.
func (c *Cluster) run(args ...string) (string, error) {
	return runScript(c.script, args...)
}

func runScript(script string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{script}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("pg.sh %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// findScript finds scripts/pg.sh in the module root above the working
// folder (go test runs in the package's folder).
func findScript() (string, error) {
	dir, err := ModuleRoot()
	if err != nil {
		return "", fmt.Errorf("%w; run the tests with go test", err)
	}
	script := filepath.Join(dir, "scripts", "pg.sh")
	if _, err := os.Stat(script); err != nil {
		return "", fmt.Errorf("module root %s has no scripts/pg.sh", dir)
	}
	return script, nil
}

// ModuleRoot is the folder holding go.mod, at or above the working folder.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working folder")
		}
		dir = parent
	}
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port), nil
}

// removeStale destroys the clusters of test binaries that died without
// calling Stop (a panic, a -timeout, a kill), so they do not pile up.
func removeStale(script string) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), tempPattern+"*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "owner.pid"))
		if err != nil {
			continue // being set up, or not ours
		}
		pid, err := strconv.Atoi(string(b))
		if err != nil || !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			continue // its test binary is still running
		}
		replicas, _ := filepath.Glob(filepath.Join(dir, "replica*"))
		for _, r := range replicas {
			_, _ = runScript(script, "destroy", r)
		}
		if _, err := runScript(script, "destroy", filepath.Join(dir, "data")); err == nil {
			os.RemoveAll(dir)
		}
	}
}
