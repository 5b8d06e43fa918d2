// Package realtime tests pgrest's realtime change feed (realtime/changes)
// against a real PostgreSQL with wal_level = logical.
package realtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgrest/caddy-pgrest/realtime/changes"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
	"go.uber.org/zap/zaptest"
)

var pg *pgtest.Cluster

func TestMain(m *testing.M) {
	pg = pgtest.MustStartWith(pgtest.Options{LogicalReplication: true})
	pg.Run(m)
}

// fixture: the authenticator may replicate and switch to rt_user,
// rt_anon and rt_staff; todos is under row-level security (each user of
// rt_user sees the rows they own, rt_staff the rows owned by staff)
// with a column rt_user may not read; notes is open to both;
// hidden is published but granted to nobody; unpublished is not in the
// publication.
const fixture = `
do $$ begin
  if not exists (select from pg_roles where rolname = 'authenticator') then
    create role authenticator login replication noinherit password 'secret';
  end if;
  if not exists (select from pg_roles where rolname = 'rt_user') then create role rt_user nologin; end if;
  if not exists (select from pg_roles where rolname = 'rt_anon') then create role rt_anon nologin; end if;
  if not exists (select from pg_roles where rolname = 'rt_staff') then create role rt_staff nologin; end if;
end $$;
grant rt_user, rt_anon, rt_staff to authenticator;
create table todos (id int primary key, owner text, body text, secret text, tags text[], meta jsonb, at timestamptz);
alter table todos enable row level security;
create policy own on todos for select to rt_user
  using (owner = current_setting('request.jwt.claims', true)::json ->> 'sub');
grant select (id, owner, body, tags, meta, at) on todos to rt_user;
create policy staff on todos for select to rt_staff using (owner = 'staff');
grant select on todos to rt_staff;
create table notes (id int primary key, body text, n numeric);
grant select on notes to rt_user, rt_anon;
create table hidden (id int primary key);
create table unpublished (id int primary key);
grant select on unpublished to rt_user;
create table nokey (body text);
grant select on nokey to rt_user;
create publication pgrest_realtime for table todos, notes, hidden, nokey;
`

// env is one test's database, its pool (as the authenticator) and feed.
type env struct {
	dsn  string // superuser
	pool *pgxpool.Pool
	feed *changes.Feed
	slot string
}

var slots atomic.Int32

// newEnv makes a database with the fixture and starts a feed on it with
// a slot of its own (slot names are cluster-wide).
func newEnv(t *testing.T, name string, cfg changes.Config) *env {
	t.Helper()
	return newEnvWithPool(t, name, cfg, 0)
}

// newEnvWithPool is newEnv with a pool of at most maxConns connections
// (0: pgxpool's default).
func newEnvWithPool(t *testing.T, name string, cfg changes.Config, maxConns int32) *env {
	t.Helper()
	dsn := pg.CreateDatabase(t, name)
	pgtest.Exec(t, dsn, fixture)
	auth := pgtest.DSNFor(dsn, "authenticator", "secret")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	poolCfg, err := pgxpool.ParseConfig(auth)
	if err != nil {
		t.Fatal(err)
	}
	if maxConns > 0 {
		poolCfg.MaxConns = maxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnString = auth
	cfg.Publication = "pgrest_realtime"
	cfg.SlotName = fmt.Sprintf("pgrest_test_%s_%d", name, slots.Add(1))
	feed, err := changes.Start(ctx, cfg, pool, zaptest.NewLogger(t))
	if err != nil {
		pool.Close()
		t.Fatal(err)
	}
	e := &env{dsn: dsn, pool: pool, feed: feed, slot: cfg.SlotName}
	t.Cleanup(func() {
		if err := feed.Close(); err != nil {
			t.Error(err)
		}
		pool.Close()
	})
	return e
}

// sink collects one subscription's deliveries.
type sink struct {
	mu   sync.Mutex
	got  []delivered
	more chan struct{}
}

// delivered is a delivery decoded: payload.data as Supabase sends it.
type delivered struct {
	IDs  []uint32
	Data struct {
		Type      string              `json:"type"`
		Schema    string              `json:"schema"`
		Table     string              `json:"table"`
		Commit    string              `json:"commit_timestamp"`
		Columns   []map[string]string `json:"columns"`
		Record    map[string]any      `json:"record"`
		OldRecord map[string]any      `json:"old_record"`
		Errors    []string            `json:"errors"`
	}
	raw string
}

func newSink() *sink { return &sink{more: make(chan struct{}, 1)} }

func (s *sink) deliver(d changes.Delivery) {
	var x delivered
	x.IDs = d.IDs
	x.raw = string(d.Data)
	if err := json.Unmarshal(d.Data, &x.Data); err != nil {
		panic(err)
	}
	s.mu.Lock()
	s.got = append(s.got, x)
	s.mu.Unlock()
	select {
	case s.more <- struct{}{}:
	default:
	}
}

// wait returns the deliveries once there are at least n, failing the
// test when they do not come (the deadline only ends a test that would
// otherwise hang; nothing is measured).
func (s *sink) wait(t *testing.T, n int) []delivered {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		s.mu.Lock()
		got := append([]delivered(nil), s.got...)
		s.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-s.more:
		case <-deadline:
			t.Fatalf("got %d deliveries, want %d: %v", len(got), n, summary(got))
		}
	}
}

func (s *sink) snapshot() []delivered {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]delivered(nil), s.got...)
}

func subscribe(t *testing.T, e *env, who changes.Identity, specs ...changes.Spec) (*changes.Subscription, []changes.Bound, *sink) {
	t.Helper()
	s := newSink()
	sub, bound, err := e.feed.Subscribe(context.Background(), who, specs, s.deliver)
	if err != nil {
		t.Fatalf("Subscribe(%+v): %v", specs, err)
	}
	t.Cleanup(sub.Close)
	return sub, bound, s
}

func user(sub string) changes.Identity {
	return changes.Identity{Role: "rt_user", Claims: []byte(`{"role":"rt_user","sub":"` + sub + `"}`)}
}

var anon = changes.Identity{Role: "rt_anon", Claims: []byte(`{"role":"rt_anon"}`)}
