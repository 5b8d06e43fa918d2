package schemacache

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The schema cache's golden dumps: everything schemacache.Load reads and
// derives from the fixtures the tests use and from the large schema,
// written by Cache.Dump. A change to the loader (its queries, how many
// round trips they take, how relationships are derived) must leave every
// line as it is; a deliberate change of what the cache holds rewrites
// them with
//
//	go test ./tests/schemacache/ -run TestTheCacheIsWhatItWas -update
//
// and the diff is reviewed. The large schema's dump, some 20,000 lines,
// is kept as its SHA-256 only.
var update = flag.Bool("update", false, "rewrite testdata/cache from the loaded caches")

// dumpFixture is one database whose cache is compared with its golden.
type dumpFixture struct {
	name    string
	schemas []string
	// dsn makes the database (once) and returns its superuser URL; login
	// and password are the role the cache loads as.
	dsn             func(t *testing.T) string
	login, password string
	// digestOnly keeps only the dump's SHA-256 in testdata.
	digestOnly bool
}

func TestTheCacheIsWhatItWas(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a schema of 1,000 tables")
	}
	cases := []dumpFixture{
		{name: "schemacache", schemas: []string{"api"}, dsn: func(*testing.T) string { return fixtureDSN },
			login: authenticator, password: authenticatorPassword},
		{name: "read", schemas: fixtures.ExposedSchemas(), dsn: readDSN,
			login: fixtures.Authenticator, password: fixtures.AuthenticatorPassword},
		{name: "representations", schemas: []string{"api"}, dsn: representationsDSN,
			login: fixtures.Authenticator, password: fixtures.AuthenticatorPassword},
		{name: "media_handlers", schemas: []string{fixtures.MediaSchema}, dsn: mediaDSN,
			login: fixtures.Authenticator, password: fixtures.AuthenticatorPassword},
		{name: "loader_edges", schemas: []string{"api", "api2"}, dsn: edgesDSN,
			login: authenticator, password: authenticatorPassword},
		{name: "large", schemas: []string{"big"}, dsn: func(t *testing.T) string { return largeSchemaDSN(t) },
			login: authenticator, password: authenticatorPassword, digestOnly: true},
	}
	for _, fx := range cases {
		t.Run(fx.name, func(t *testing.T) {
			dsn := fx.dsn(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			conn, err := pgx.Connect(ctx, pgtest.DSNFor(dsn, fx.login, fx.password))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(context.Background())
			c, err := schemacache.Load(ctx, conn, fx.schemas)
			if err != nil {
				t.Fatalf("loading the cache: %v", err)
			}
			checkEnvironmentFacts(t, ctx, conn, c)
			got := stableDump(t, c)
			compareWithGolden(t, fx, got)
		})
	}
}

// stableDump is the cache's dump less what differs between two machines
// made alike: the server's minor version, which checkEnvironmentFacts
// checks against the server instead.
func stableDump(t *testing.T, c *schemacache.Cache) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Dump(&buf); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if strings.HasPrefix(line, "server_version_num ") {
			continue
		}
		out.WriteString(line)
	}
	return out.Bytes()
}

// checkEnvironmentFacts checks what the golden dumps leave out against the
// server: its version and the functions' oids.
func checkEnvironmentFacts(t *testing.T, ctx context.Context, conn *pgx.Conn, c *schemacache.Cache) {
	t.Helper()
	var version string
	if err := conn.QueryRow(ctx, `select current_setting('server_version_num')`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if strconv.Itoa(c.ServerVersionNum) != version {
		t.Errorf("ServerVersionNum %d, server_version_num %s", c.ServerVersionNum, version)
	}
	for _, byName := range c.Functions {
		for _, overloads := range byName {
			for _, f := range overloads {
				var ok bool
				err := conn.QueryRow(ctx, `select exists (select from pg_catalog.pg_proc p
					join pg_catalog.pg_namespace n on n.oid = p.pronamespace
					where p.oid = $1 and n.nspname = $2 and p.proname = $3)`, f.OID, f.Schema, f.Name).Scan(&ok)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					t.Errorf("function %s.%s has oid %d, which is another's", f.Schema, f.Name, f.OID)
				}
			}
		}
	}
}

func compareWithGolden(t *testing.T, fx dumpFixture, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "cache", fx.name+".txt")
	want := got
	if fx.digestOnly {
		path = filepath.Join("testdata", "cache", fx.name+".sha256")
		sum := sha256.Sum256(got)
		want = []byte(hex.EncodeToString(sum[:]) + "\n")
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	golden, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if bytes.Equal(golden, want) {
		return
	}
	if fx.digestOnly {
		// Keep the dump where it can be diffed with one from before the
		// change.
		f, err := os.CreateTemp("", "pgrest-cache-"+fx.name+"-*.txt")
		if err == nil {
			_, _ = f.Write(got)
			_ = f.Close()
		}
		t.Errorf("the cache's dump has SHA-256 %s, %s says %s: the cache changed (its dump is in %s)",
			strings.TrimSpace(string(want)), path, strings.TrimSpace(string(golden)), f.Name())
		return
	}
	t.Errorf("the cache differs from %s (after a deliberate change, run with -update and review the diff):\n%s",
		path, lineDiff(string(golden), string(got)))
}

// lineDiff lists the lines only one side has, at most 40 of them.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	n := 0
	for _, l := range w {
		if !slices.Contains(g, l) && n < 40 {
			fmt.Fprintf(&b, "- %s\n", l)
			n++
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) && n < 40 {
			fmt.Fprintf(&b, "+ %s\n", l)
			n++
		}
	}
	if n == 0 {
		b.WriteString("(the same lines in another order)\n")
	}
	return b.String()
}

// fixtureDB makes a database from fixture SQL once per test binary.
type fixtureDB struct {
	once sync.Once
	dsn  string
	err  error
}

func (db *fixtureDB) get(t *testing.T, name string, prepare func() error, sqls ...string) string {
	t.Helper()
	db.once.Do(func() {
		if prepare != nil {
			if db.err = prepare(); db.err != nil {
				return
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		dsn, err := cluster.NewDatabase(ctx, name)
		for _, sql := range sqls {
			if err != nil {
				break
			}
			err = pgtest.ExecSQL(ctx, dsn, sql)
		}
		db.dsn, db.err = dsn, err
	})
	if db.err != nil {
		t.Fatalf("fixture database %s: %v", name, db.err)
	}
	return db.dsn
}

var readDB, representationsDB, mediaDB, edgesDB fixtureDB

//go:embed testdata/loader_edges.sql
var loaderEdgesSQL string

// edgesDSN: testdata/loader_edges.sql, what the loader's queries treat
// specially, each once.
func edgesDSN(t *testing.T) string {
	return edgesDB.get(t, "pgrest_schemacache_edges", nil, loaderEdgesSQL)
}

func readDSN(t *testing.T) string {
	return readDB.get(t, "pgrest_schemacache_read", nil, fixtures.ReadSQL)
}

// representationsDSN: representations.sql, after read.sql so that the
// roles it shares with read.sql have their passwords.
func representationsDSN(t *testing.T) string {
	readDSN(t)
	return representationsDB.get(t, "pgrest_schemacache_representations", nil, fixtures.RepresentationsSQL)
}

// mediaDSN: media_handlers.sql, which needs PostGIS and read.sql's roles.
func mediaDSN(t *testing.T) string {
	readDSN(t)
	return mediaDB.get(t, "pgrest_schemacache_media", pgtest.EnsurePostGIS, fixtures.MediaHandlersSQL)
}
