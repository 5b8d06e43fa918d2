package main

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	_ "github.com/caddyserver/caddy/v2/modules/standard" // the http app and its Caddyfile adapter
	_ "github.com/pgrest/caddy-pgrest/caddymodule"       // the pgrest handler

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// checkInterval is db_replica_check_interval of the routing pgrest: how
// soon a restarted replica can be taken back is a check or two.
const checkInterval = 200 * time.Millisecond

// fixtureSQL is the bench's database: api.items and a function that
// tells the primary from the replica.
var fixtureSQL = `
create schema api;
grant usage on schema api to web_anon;
create table api.items (id int primary key, name text not null, price numeric(10,2) not null);
insert into api.items select i, 'item ' || i, i * 1.25 from generate_series(1, %d) i;
grant select on api.items to web_anon;
create function api.in_recovery() returns boolean stable language sql as 'select pg_is_in_recovery()';
grant execute on function api.in_recovery() to web_anon;
analyze api.items;
`

// site is one pgrest variant: a site of the Caddy config.
type site struct {
	name string
	url  string
	dirs map[string]string
}

// env is what the bench runs against.
type env struct {
	cluster *pgtest.Cluster
	replica *pgtest.Replica
	client  *http.Client
	rows    int
	// super is the superuser URL of the bench's database on the primary.
	super string
	// common are the subdirectives every variant starts from.
	common map[string]string

	routed, onReplica, direct, directUnprepared, bouncer *site
}

func setUp(ctx context.Context, opt options) (*env, error) {
	cluster, err := pgtest.Start()
	if err != nil {
		return nil, err
	}
	e := &env{cluster: cluster, rows: opt.rows, client: &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: opt.conc * 2, MaxIdleConns: opt.conc * 10},
	}}
	super, err := cluster.NewDatabase(ctx, "pgrest_benchscale")
	if err != nil {
		return e, err
	}
	e.super = super
	if err := pgtest.ExecSQL(ctx, super, fixtures.RolesSQL+fmt.Sprintf(fixtureSQL, opt.rows)); err != nil {
		return e, fmt.Errorf("loading the fixture: %w", err)
	}
	if e.replica, err = cluster.StartReplica(); err != nil {
		return e, err
	}
	if _, err := cluster.StartPgBouncer(); err != nil {
		return e, err
	}
	primary := pgtest.DSNFor(super, "authenticator", fixtures.AuthenticatorPassword)
	replicaDSN, err := e.replica.DSN(primary)
	if err != nil {
		return e, err
	}
	viaBouncer, err := cluster.ViaPgBouncer(primary)
	if err != nil {
		return e, err
	}
	if err := waitForReplicaCopy(ctx, replicaDSN); err != nil {
		return e, err
	}
	e.common = map[string]string{"db_schemas": "api", "db_anon_role": "web_anon", "db_pool": fmt.Sprint(opt.pool)}
	with := func(name string, lines ...string) *site {
		return &site{name: name, dirs: pgresttest.Directives(e.common, lines...)}
	}
	q := pgresttest.Quote
	e.routed = with("routed", "db_uri "+q(primary), "db_replicas "+q(replicaDSN),
		"db_replica_check_interval "+checkInterval.String())
	// A replica cannot LISTEN: the variant served by it alone has no
	// reload listener.
	e.onReplica = with("replica", "db_uri "+q(replicaDSN), "db_channel_enabled false")
	e.direct = with("direct", "db_uri "+q(primary))
	e.directUnprepared = with("direct-unprepared", "db_uri "+q(primary), "db_prepared_statements false")
	e.bouncer = with("pgbouncer", "db_uri "+q(viaBouncer), "db_prepared_statements false", "db_channel_uri "+q(primary))
	if err := serve(e.sites()...); err != nil {
		return e, err
	}
	for _, s := range e.sites() {
		if err := waitUntil(ctx, 30*time.Second, func() bool { return e.read(s) == nil }); err != nil {
			return e, fmt.Errorf("%s does not serve: %v", s.name, e.read(s))
		}
	}
	if err := e.waitOnReplica(ctx); err != nil {
		return e, err
	}
	return e, nil
}

func (e *env) sites() []*site {
	return []*site{e.routed, e.onReplica, e.direct, e.directUnprepared, e.bouncer}
}

// serve loads one Caddy config with each of sites as a site on a port of
// its own, replacing the config Caddy runs; Caddy logs errors only.
func serve(sites ...*site) error { return serveLogging("level ERROR", sites...) }

// serveLogging is serve with the global log options log (a line such as
// "level ERROR" or "output discard").
func serveLogging(log string, sites ...*site) error {
	var b strings.Builder
	fmt.Fprintf(&b, "{\n\tadmin off\n\tauto_https off\n\tpersist_config off\n\tlog {\n\t\t%s\n\t}\n}\n", log)
	for _, s := range sites {
		port, err := pgresttest.FreePort()
		if err != nil {
			return err
		}
		s.url = fmt.Sprintf("http://127.0.0.1:%d", port)
		names := make([]string, 0, len(s.dirs))
		for n := range s.dirs {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(&b, "%s {\n\tpgrest {\n", s.url)
		for _, n := range names {
			fmt.Fprintf(&b, "\t\t%s %s\n", n, s.dirs[n])
		}
		b.WriteString("\t}\n}\n")
	}
	cfg, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(b.String()), nil)
	if err != nil {
		return fmt.Errorf("adapting the Caddyfile: %w\n%s", err, b.String())
	}
	if err := caddy.Load(cfg, true); err != nil {
		return fmt.Errorf("loading the Caddy config: %w", err)
	}
	return nil
}

func (e *env) tearDown() {
	_ = caddy.Stop()
	e.cluster.Stop()
}

// waitForReplicaCopy waits until the replica has replayed the fixture.
func waitForReplicaCopy(ctx context.Context, dsn string) error {
	return waitUntil(ctx, 30*time.Second, func() bool {
		n, err := pgresttest.QueryInt(ctx, dsn, "select count(*) from pg_proc where proname = 'in_recovery'")
		return err == nil && n == 1
	})
}

// waitOnReplica waits until the routing pgrest reads from the replica.
func (e *env) waitOnReplica(ctx context.Context) error {
	if err := waitUntil(ctx, 30*time.Second, func() bool { return e.where(e.routed) == answerReplica }); err != nil {
		return fmt.Errorf("the routing pgrest does not read from the replica: %w", err)
	}
	return nil
}

// waitUntil polls cond every 20ms for up to limit.
func waitUntil(ctx context.Context, limit time.Duration, cond func() bool) error {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %s", limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}
