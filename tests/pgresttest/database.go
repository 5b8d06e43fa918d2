package pgresttest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// DB is a fresh database in a throwaway cluster (tests/pgtest), made by
// SetUp.
type DB struct {
	Cluster *pgtest.Cluster
	// SuperDSN connects to the database as a superuser.
	SuperDSN string
}

// A Loader loads SQL into the database at superDSN.
type Loader func(ctx context.Context, superDSN string) error

// Files loads the SQL files matching each pattern (see filepath.Glob):
// the patterns in order, the files of one pattern in name order. A
// pattern matching no file is an error.
func Files(patterns ...string) Loader {
	return func(ctx context.Context, dsn string) error {
		for _, p := range patterns {
			files, err := filepath.Glob(p)
			if err != nil {
				return err
			}
			if len(files) == 0 {
				return fmt.Errorf("no SQL file matches %s", p)
			}
			sort.Strings(files)
			for _, f := range files {
				sql, err := os.ReadFile(f)
				if err != nil {
					return err
				}
				if err := SQL(f, string(sql))(ctx, dsn); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// FileSection loads a part of the SQL file path: its lines from the first
// that starts with from up to, not including, the next that starts with
// to. It is an error when either line is missing, so a renamed heading
// fails the load rather than loading nothing.
func FileSection(path, from, to string) Loader {
	return func(ctx context.Context, dsn string) error {
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		part, err := section(string(text), from, to)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return SQL(fmt.Sprintf("%s from %q to %q", path, from, to), part)(ctx, dsn)
	}
}

// section is the lines of text from the first starting with from up to,
// not including, the next starting with to.
func section(text, from, to string) (string, error) {
	lines := strings.SplitAfter(text, "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, from) })
	if start < 0 {
		return "", fmt.Errorf("no line starts with %q", from)
	}
	end := slices.IndexFunc(lines[start+1:], func(l string) bool { return strings.HasPrefix(l, to) })
	if end < 0 {
		return "", fmt.Errorf("no line after %q starts with %q", from, to)
	}
	return strings.Join(lines[start:start+1+end], ""), nil
}

// ReadFixture loads fixtures.ReadSQL, the read API fixture most packages
// serve.
var ReadFixture = SQL("read.sql", fixtures.ReadSQL)

// SQL loads text, which may hold several statements (see
// pgtest.ExecSQL); name says what it is in errors.
func SQL(name, text string) Loader {
	return func(ctx context.Context, dsn string) error {
		if err := pgtest.ExecSQL(ctx, dsn, text); err != nil {
			return fmt.Errorf("loading %s: %w", name, err)
		}
		return nil
	}
}

// SetUp starts a throwaway cluster (pgtest.Start), makes the database
// called name in it (afresh) with the roles of PostgREST's usual setup
// (fixtures.RolesSQL: authenticator, with fixtures.AuthenticatorPassword,
// web_anon and webuser) and runs loaders on it, in order. On error it
// stops the cluster again.
func SetUp(ctx context.Context, name string, loaders ...Loader) (*DB, error) {
	cluster, err := pgtest.Start()
	if err != nil {
		return nil, err
	}
	return setUpIn(ctx, cluster, name, loaders)
}

// MustSetUp is SetUp for TestMain, within two minutes: on failure it
// prints why and exits. Run the tests with Run.
func MustSetUp(name string, loaders ...Loader) *DB {
	return MustSetUpWith(name, pgtest.Options{}, loaders...)
}

// MustSetUpWith is MustSetUp on a cluster started with opts (such as
// wal_level = logical for the realtime change feed).
func MustSetUpWith(name string, opts pgtest.Options, loaders ...Loader) *DB {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, err := setUpIn(ctx, pgtest.MustStartWith(opts), name, loaders)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return db
}

func setUpIn(ctx context.Context, cluster *pgtest.Cluster, name string, loaders []Loader) (*DB, error) {
	dsn, err := cluster.NewDatabase(ctx, name)
	loaders = append([]Loader{SQL("the roles", fixtures.RolesSQL)}, loaders...)
	for _, load := range loaders {
		if err != nil {
			break
		}
		err = load(ctx, dsn)
	}
	if err == nil && viaPgBouncer() {
		err = startPgBouncer(cluster)
	}
	if err != nil {
		cluster.Stop()
		return nil, err
	}
	return &DB{Cluster: cluster, SuperDSN: dsn}, nil
}

// Run runs the tests, then stops what the package started beside the
// cluster (after, in order), stops the cluster and exits with the tests'
// code (see pgtest.Cluster.Run).
func (db *DB) Run(m *testing.M, after ...func()) { db.Cluster.Run(m, after...) }

// Abort prints what failed and why, stops the cluster and exits 1 (see
// pgtest.Cluster.Abort).
func (db *DB) Abort(what string, err error) { db.Cluster.Abort(what, err) }

// DSNFor connects to the database as user (see pgtest.DSNFor).
func (db *DB) DSNFor(user, password string) string {
	return pgtest.DSNFor(db.SuperDSN, user, password)
}

// AuthenticatorDSN connects to the database as the authenticator SetUp
// made, as a server under test does.
func (db *DB) AuthenticatorDSN() string {
	return db.DSNFor(fixtures.Authenticator, fixtures.AuthenticatorPassword)
}

// QueryJSON runs query on the database at dsn and returns its rows as a
// JSON array of objects (through json_agg), so they compare with the rows
// of a response.
func QueryJSON(ctx context.Context, dsn, query string, args ...any) ([]byte, error) {
	var b []byte
	err := queryRow(ctx, dsn, "select coalesce(json_agg(q), '[]')::text from ("+query+") q", args, &b)
	return b, err
}

// SQLJSON is QueryJSON within a minute, failing t on error.
func SQLJSON(t testing.TB, dsn, query string, args ...any) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := QueryJSON(ctx, dsn, query, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, query)
	}
	return b
}

// QueryInt runs query, which returns one integer, on the database at dsn.
func QueryInt(ctx context.Context, dsn, query string, args ...any) (int64, error) {
	var n int64
	err := queryRow(ctx, dsn, query, args, &n)
	return n, err
}

// SQLInt is QueryInt within 30 seconds, failing t on error.
func SQLInt(t testing.TB, dsn, query string, args ...any) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := QueryInt(ctx, dsn, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// queryRow scans the one row of query into dest on a connection of its
// own.
func queryRow(ctx context.Context, dsn, query string, args []any, dest ...any) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.QueryRow(ctx, query, args...).Scan(dest...)
}
