package read

import (
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// These tests change schemas, which the shared fixture database must not
// see: each makes a small database of its own in the same cluster (the
// fixture's roles are cluster-wide) and points a server at it.

// cacheSchema is the starting point of a schema cache test's database: an
// exposed schema api whose tables, now and later, web_anon may read.
const cacheSchema = `
create schema api;
grant usage on schema api to web_anon;
alter default privileges in schema api grant select on tables to web_anon;
create table api.seed (id int primary key);
insert into api.seed values (1);
`

// cacheDatabase makes a database called name holding cacheSchema and
// returns its superuser URL. It is dropped when t ends.
func cacheDatabase(t *testing.T, name string) string {
	t.Helper()
	dsn := db.Cluster.CreateDatabase(t, name)
	pgtest.Exec(t, dsn, cacheSchema)
	return dsn
}

// startCacheServer serves the database at dsn, schema api only.
func startCacheServer(t *testing.T, dsn string, lines ...string) *server {
	t.Helper()
	app := pgtest.DSNFor(dsn, fixtures.Authenticator, fixtures.AuthenticatorPassword)
	return startServer(t, append([]string{"db_uri " + app, "db_schemas api"}, lines...)...)
}

// eventually calls try until it reports success or timeout passes; then
// it fails t with try's last word.
func eventually(t *testing.T, timeout time.Duration, try func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, last := try()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", timeout, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// eventuallyBody waits until GET path answers 200 with want, calling
// poke (which may be nil) before each attempt.
func eventuallyBody(t *testing.T, s *server, path, want string, poke func()) {
	t.Helper()
	eventually(t, 30*time.Second, func() (bool, string) {
		if poke != nil {
			poke()
		}
		res := s.Get(t, path)
		if res.Status != http.StatusOK {
			return false, res.Header.Get("Proxy-Status") + " " + string(res.Body)
		}
		expectJSON(t, res.Body, want)
		return true, ""
	})
}

// expectTableNotFound checks that the cache does not know api.table.
func expectTableNotFound(t *testing.T, s *server, table string) {
	t.Helper()
	e := s.Get(t, "/"+table).ExpectError(t, http.StatusNotFound, "PGRST205")
	if want := "Could not find the table 'api." + table + "' in the schema cache"; e["message"] != want {
		t.Errorf("message %q, want %q", e["message"], want)
	}
}

// TestCacheReloadOnNotify reloads the schema cache on NOTIFY.
func TestCacheReloadOnNotify(t *testing.T) {
	dsn := cacheDatabase(t, "pgrest_read_notify")
	s := startCacheServer(t, dsn)
	res := s.Get(t, "/seed")
	res.ExpectStatus(t, http.StatusOK)
	expectJSON(t, res.Body, `[{"id":1}]`)

	t.Run("a table created after the cache loaded is not found until a reload", func(t *testing.T) {
		pgtest.Exec(t, dsn, `create table api.notified (id int primary key, note text);
			insert into api.notified values (1, 'after start');`)
		expectTableNotFound(t, s, "notified")
	})
	t.Run("NOTIFY pgrst, 'reload schema' makes the new table readable", func(t *testing.T) {
		// Notifications sent before the listener connects are lost, so
		// each attempt sends one.
		eventuallyBody(t, s, "/notified", `[{"id":1,"note":"after start"}]`, func() {
			pgtest.Exec(t, dsn, `notify pgrst, 'reload schema'`)
		})
	})
	t.Run("NOTIFY pgrst with an empty payload reloads too", func(t *testing.T) {
		pgtest.Exec(t, dsn, `create table api.notified_empty (id int primary key);
			insert into api.notified_empty values (2);`)
		expectTableNotFound(t, s, "notified_empty")
		eventuallyBody(t, s, "/notified_empty", `[{"id":2}]`, func() {
			pgtest.Exec(t, dsn, `notify pgrst`)
		})
	})
	t.Run("a foreign key added later becomes embeddable after a reload", func(t *testing.T) {
		pgtest.Exec(t, dsn, `alter table api.notified add column seed_id int references api.seed (id);
			update api.notified set seed_id = 1;`)
		e := s.Get(t, "/notified?select=id,seed(id)").ExpectError(t, http.StatusBadRequest, "PGRST200")
		if want := "Could not find a relationship between 'notified' and 'seed' in the schema cache"; e["message"] != want {
			t.Errorf("message %q, want %q", e["message"], want)
		}
		eventuallyBody(t, s, "/notified?select=id,seed(id)", `[{"id":1,"seed":{"id":1}}]`, func() {
			pgtest.Exec(t, dsn, `notify pgrst, 'reload schema'`)
		})
	})
}

// TestCacheReloadOnCustomChannel listens on db_channel.
func TestCacheReloadOnCustomChannel(t *testing.T) {
	dsn := cacheDatabase(t, "pgrest_read_channel")
	s := startCacheServer(t, dsn, "db_channel pgrest_custom")
	s.Get(t, "/seed").ExpectStatus(t, http.StatusOK)
	t.Run("NOTIFY on the configured channel reloads the cache", func(t *testing.T) {
		pgtest.Exec(t, dsn, `create table api.on_custom (id int primary key); insert into api.on_custom values (3);`)
		expectTableNotFound(t, s, "on_custom")
		eventuallyBody(t, s, "/on_custom", `[{"id":3}]`, func() {
			pgtest.Exec(t, dsn, `notify pgrest_custom, 'reload schema'`)
		})
	})
}

// TestCacheReloadOnSignal reloads the schema cache on SIGUSR1, sent to
// this process, which runs the server.
func TestCacheReloadOnSignal(t *testing.T) {
	dsn := cacheDatabase(t, "pgrest_read_signal")
	s := startCacheServer(t, dsn, "db_channel_enabled false")
	s.Get(t, "/seed").ExpectStatus(t, http.StatusOK)
	pgtest.Exec(t, dsn, `create table api.signalled (id int primary key); insert into api.signalled values (4);`)
	t.Run("a table created after the cache loaded is not found before the signal", func(t *testing.T) {
		expectTableNotFound(t, s, "signalled")
	})
	t.Run("SIGUSR1 reloads the cache and the new table is readable", func(t *testing.T) {
		// The server is running, so its handler catches the signal; no
		// signal may be sent once it stops.
		if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		eventuallyBody(t, s, "/signalled", `[{"id":4}]`, nil)
	})
}

// TestCacheUnavailable serves a database whose catalog the authenticator
// cannot read: requests get PGRST002 until the cache loads on a retry.
func TestCacheUnavailable(t *testing.T) {
	dsn := cacheDatabase(t, "pgrest_read_nocache")
	// The cache's column query calls format_type; without EXECUTE on it
	// (in this database only) it fails.
	pgtest.Exec(t, dsn, `revoke execute on function pg_catalog.format_type(oid, integer) from public`)
	s := startCacheServer(t, dsn)
	for _, path := range []string{"/seed", "/anything?select=id"} {
		t.Run("while the cache cannot load, GET "+path+" is 503 PGRST002", func(t *testing.T) {
			res := s.Get(t, path)
			expectErrorBody(t, res, http.StatusServiceUnavailable, `{"code":"PGRST002",
				"message":"Could not query the database for the schema cache. Retrying.","details":null,"hint":null}`)
		})
	}
	t.Run("once the catalog is readable again, a retry loads the cache and requests succeed", func(t *testing.T) {
		pgtest.Exec(t, dsn, `grant execute on function pg_catalog.format_type(oid, integer) to public`)
		eventually(t, 30*time.Second, func() (bool, string) {
			res := s.Get(t, "/seed")
			if res.Status != http.StatusOK {
				return false, res.Header.Get("Proxy-Status") + " " + string(res.Body)
			}
			expectJSON(t, res.Body, `[{"id":1}]`)
			return true, ""
		})
	})
}
