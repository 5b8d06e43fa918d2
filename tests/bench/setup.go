package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

const (
	// The fixtures' password, which pgresttest.SetUp gives the
	// authenticator with the roles.
	authenticatorPassword = fixtures.AuthenticatorPassword
	// jwtSecret is the HS256 passphrase (48 characters).
	jwtSecret = "pgrest-bench-secret-0123456789abcdefghijklmnopqr"
	// requestRole is the role of the token every request carries.
	requestRole = "webuser"
	schemaName  = "api"
	userAgent   = "pgrest-bench"
	// acceptHeader is every request's Accept.
	acceptHeader = "application/json"
)

// fixtureSQL makes, after the roles pgresttest.SetUp makes, api.items
// (fixtures.BenchItemsSQL) with rows rows and api.item_reviews with
// reviewsPerItem reviews of each item, indexed on the foreign key as a
// read-heavy schema would be; api.item_log, which items_post inserts into; api.item_stock, whose
// row 42 item_upsert and item_patch write; api.item_price, which rpc_call
// calls.
//
// Two more objects serve the set-up only, never the measured load:
// api.bench_request returns the request settings pgrest set, so the
// baselines can send the very same values, and api.bench_prepared lists
// the statements prepared on the connection that serves it, so that the
// bench can check pgrest sent the SQL text the baselines send
// (verifyStatements).
func fixtureSQL(rows int) string {
	return fixtures.BenchItemsSQL(rows) + fmt.Sprintf(moreFixtureSQL, rows)
}

// moreFixtureSQL is fixtureSQL after api.items, with the number of items.
const moreFixtureSQL = `
create table api.item_reviews (
	id      int primary key,
	item_id int not null references api.items (id),
	stars   int not null,
	body    text not null
);
insert into api.item_reviews
select (i - 1) * 5 + n, i, 1 + (i * 7 + n) %% 5, 'review ' || n || ' of item ' || i
from generate_series(1, %d) i, generate_series(1, 5) n;
create index item_reviews_item_id on api.item_reviews (item_id);
analyze api.items, api.item_reviews;

create table api.item_log (
	id         bigint generated always as identity primary key,
	item_id    int not null,
	note       text,
	created_at timestamptz not null default now()
);

create table api.item_stock (
	item_id int primary key,
	qty     int not null
);
insert into api.item_stock values (42, 7);

create function api.item_price(item_id int) returns numeric
language sql stable
as $f$ select price from api.items where id = item_id $f$;

create function api.bench_request(item_id int default null, note text default null, qty int default null) returns json
language sql stable
as $f$
select json_build_object(
	'role', current_user::text,
	'claims', current_setting('request.jwt.claims', true),
	'method', current_setting('request.method', true),
	'path', current_setting('request.path', true),
	'headers', current_setting('request.headers', true),
	'cookies', current_setting('request.cookies', true),
	'search_path', current_setting('search_path'))
$f$;

-- The sleep makes concurrent reads overlap, so that each holds a
-- connection of its own (verifyStatements). 10 ms was too short on a
-- loaded machine: the reads then ran one after another on the same few
-- connections and missed statements prepared on the others.
create view api.bench_prepared as
select name, statement from pg_catalog.pg_prepared_statements, pg_catalog.pg_sleep(0.1);

grant select on api.items, api.item_reviews, api.bench_prepared to web_anon, webuser;
-- pgrest's INSERT ends in RETURNING even for return=minimal (the
-- response counts the written rows), which takes SELECT.
grant select, insert on api.item_log to webuser;
grant usage on sequence api.item_log_id_seq to webuser;
grant select, insert, update on api.item_stock to webuser;

-- The role of -diag-features' rolesettings variant: webuser's privileges
-- and settings of its own, which pgrest applies in its transactions.
do $$ begin
  if not exists (select from pg_roles where rolname = 'webuser_settings') then
    create role webuser_settings nologin;
  end if;
end $$;
grant webuser to webuser_settings;
grant webuser_settings to authenticator;
alter role webuser_settings set statement_timeout = '10s';
alter role webuser_settings set work_mem = '8MB';
`

// reviewsPerItem is how many rows of api.item_reviews each item has (the
// 5 in fixtureSQL).
const reviewsPerItem = 5

// kind is how pgrest serves a workload, and so which statement the
// baselines send and how their transaction ends.
type kind int

const (
	// read: GET on a table, sqlgen.Read; read-only, one round trip.
	read kind = iota
	// insert: POST on a table with return=minimal, sqlgen.Write;
	// read-write, nothing to check, committed in the same round trip.
	insert
	// upsert: insert with Prefer: resolution=merge-duplicates, on the
	// primary key; the same transaction.
	upsert
	// update: PATCH of one row by its primary key with return=minimal;
	// the same transaction.
	update
	// call: POST /rpc/<function> of a stable function returning a
	// scalar, sqlgen.CallFunction; read-only, one round trip.
	call
)

// workload is one request shape and what it must answer.
type workload struct {
	name   string
	kind   kind
	method string
	target string // the request's path and query string
	path   string // its path alone, as request.path shows it
	// reqBody and prefer are the request's body (sent as
	// application/json) and Prefer header, or empty.
	reqBody []byte
	prefer  string
	status  int // the status pgrest answers with
	rows    int // rows in the body, at the top level (read)
	// nested is how many objects each row embeds (item_reviews), or 0.
	nested int
	// mainSQL and mainArgs are the statement pgrest sends for the
	// request, from planWorkloads.
	mainSQL  string
	mainArgs [][]byte
	mainName string // its prepared statement in the raw baseline
	// stream, for a read, says how its rows make the body (streamed.go).
	stream *sqlgen.RowStream
	// body is the expected response body, taken from pgrest's first
	// answer and checked against the baselines'.
	body []byte
	// settings are the settings statement's arguments for this request.
	settings [][]byte
}

// readOnly says whether pgrest runs the workload in a read-only
// transaction, ended in the same round trip.
func (wl *workload) readOnly() bool { return wl.kind == read || wl.kind == call }

// affected is the page_total a write's main statement must return for
// the baselines' answer to count: one row written.
const affected = 1

func newWorkloads() []*workload {
	mk := func(name string, k kind, method, target string, status int) *workload {
		path, _, _ := strings.Cut(target, "?")
		return &workload{name: name, kind: k, method: method, target: target, path: path, status: status, mainName: "bench_" + name}
	}
	get := func(name, target string, rows, nested int) *workload {
		wl := mk(name, read, http.MethodGet, target, http.StatusOK)
		wl.rows, wl.nested = rows, nested
		return wl
	}
	post := mk("items_post", insert, http.MethodPost, "/item_log", http.StatusCreated)
	post.reqBody, post.prefer = []byte(`{"item_id": 42, "note": "pgrest bench"}`), "return=minimal"
	// An upsert of a row that exists: merged, nothing inserted, 200.
	put := mk("item_upsert", upsert, http.MethodPost, "/item_stock", http.StatusOK)
	put.reqBody, put.prefer = []byte(`{"item_id": 42, "qty": 7}`), "resolution=merge-duplicates, return=minimal"
	patch := mk("item_patch", update, http.MethodPatch, "/item_stock?item_id=eq.42", http.StatusNoContent)
	patch.reqBody, patch.prefer = []byte(`{"qty": 7}`), "return=minimal"
	rpc := mk("rpc_call", call, http.MethodPost, "/rpc/item_price", http.StatusOK)
	rpc.reqBody = []byte(`{"item_id": 42}`)
	return []*workload{
		get("items_eq", "/items?id=eq.42", 1, 0),
		get("items_page", "/items?order=id&limit=25", 25, 0),
		get("items_embed", "/items?select=id,name,item_reviews(stars,body)&id=lt.26&order=id", 25, reviewsPerItem),
		post,
		put,
		patch,
		rpc,
	}
}

// readMedia are the representations the executor offers for a table.
var readMedia = []apirequest.MediaType{apirequest.MediaJSON, apirequest.MediaSingleObject, apirequest.MediaCSV}

// planWorkloads gives each workload the statement pgrest sends for it, by
// running pgrest's own pipeline in this process: the schema cache loaded
// from the bench database as pgrest loads it (schemacache.Load, as the
// authenticator), then, with the options the executor derives from the
// request and from the Caddyfile of startPgrest (neither db_max_rows nor
// db_aggregates_enabled: their defaults):
//
//   - read: ParseQuery, Negotiate, BuildRead and sqlgen.Read;
//   - insert, upsert, update: ParseQuery, BuildRead and sqlgen.Write of
//     the plan.Mutation the executor builds for a POST or PATCH with
//     return=minimal (executor/write.go, unexported, so rebuilt here: see
//     planWrite);
//   - call: the function resolved from the schema cache and
//     sqlgen.CallFunction (executor/invoke.go, see planCall).
//
// The baselines then send that SQL text and those arguments. What is
// rebuilt here rather than called could drift from the executor, so
// verifyStatements checks afterwards, against the statements pgrest
// actually prepared, that every text is pgrest's.
func planWorkloads(ctx context.Context, authDSN string, workloads []*workload) error {
	conn, err := pgx.Connect(ctx, authDSN)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	cache, err := schemacache.Load(ctx, conn, []string{schemaName})
	if err != nil {
		return fmt.Errorf("loading the schema cache: %w", err)
	}
	for _, wl := range workloads {
		var st sqlgen.Statement
		switch wl.kind {
		case read:
			st, err = planRead(cache, wl)
		case insert, upsert, update:
			st, err = planWrite(cache, wl)
		case call:
			st, err = planCall(cache, wl)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", wl.name, err)
		}
		wl.mainSQL, wl.mainArgs, wl.stream = st.SQL.String(), st.Args, st.Stream.Rows()
	}
	return nil
}

// planRead is executor/read.go for a GET with Accept: application/json.
func planRead(cache *schemacache.Cache, wl *workload) (sqlgen.Statement, error) {
	path, rawQuery, _ := strings.Cut(wl.target, "?")
	rel, ok := cache.Relation(schemaName, strings.TrimPrefix(path, "/"))
	if !ok {
		return sqlgen.Statement{}, fmt.Errorf("no relation %s in the schema cache", path)
	}
	q, aerr := apirequest.ParseQuery(rawQuery)
	if aerr != nil {
		return sqlgen.Statement{}, errors.New(aerr.Message)
	}
	rep, aerr := apirequest.Negotiate(acceptHeader, readMedia)
	if aerr != nil {
		return sqlgen.Statement{}, errors.New(aerr.Message)
	}
	p, aerr := plan.BuildRead(cache, rel, q, plan.ReadOptions{})
	if aerr != nil {
		return sqlgen.Statement{}, fmt.Errorf("%s %s", aerr.Code, aerr.Message)
	}
	// Stream: as executor/read.go asks for every GET.
	main, explain := sqlgen.Read(p, sqlgen.ReadOptions{Representation: rep, Stream: true})
	if explain != nil {
		return sqlgen.Statement{}, errors.New("the baselines send no EXPLAIN")
	}
	return main, nil
}

// planWrite is what executor/write.go does for a write of one JSON
// object with Prefer: return=minimal: the body becomes a one-element JSON
// array (executor/apirequest/payload.go), its keys in body order the columns; a
// POST inserts it, merged on the primary key with
// resolution=merge-duplicates (the inserted rows counted); a PATCH
// updates the rows its filters choose, from the object. The read plan's
// filters, order and range go to the mutation and, the response being
// minimal, its output fields are cleared; the statement counts the
// written rows without building a body.
func planWrite(cache *schemacache.Cache, wl *workload) (sqlgen.Statement, error) {
	path, rawQuery, _ := strings.Cut(wl.target, "?")
	rel, ok := cache.Relation(schemaName, strings.TrimPrefix(path, "/"))
	if !ok {
		return sqlgen.Statement{}, fmt.Errorf("no relation %s in the schema cache", path)
	}
	if !strings.HasSuffix(wl.prefer, "return=minimal") {
		return sqlgen.Statement{}, fmt.Errorf("planWrite rebuilds a return=minimal write, not Prefer: %s", wl.prefer)
	}
	q, aerr := apirequest.ParseQuery(rawQuery)
	if aerr != nil {
		return sqlgen.Statement{}, errors.New(aerr.Message)
	}
	if len(q.Columns) > 0 || q.OnConflict != nil {
		return sqlgen.Statement{}, errors.New("planWrite rebuilds a write without columns= or on_conflict=")
	}
	p, aerr := plan.BuildRead(cache, rel, q, plan.ReadOptions{})
	if aerr != nil {
		return sqlgen.Statement{}, fmt.Errorf("%s %s", aerr.Code, aerr.Message)
	}
	if wl.kind != update && (len(p.Where) > 0 || len(p.Order) > 0 || !p.Range.IsAll()) {
		return sqlgen.Statement{}, errors.New("planWrite rebuilds a POST without filters, order or range")
	}
	body := bytes.TrimSpace(wl.reqBody)
	keys, err := objectKeys(body)
	if err != nil {
		return sqlgen.Statement{}, fmt.Errorf("the request body: %w", err)
	}
	for _, k := range keys {
		if _, ok := rel.Column(k); !ok {
			return sqlgen.Statement{}, fmt.Errorf("the request body names %q, not a column of %s", k, rel.Name)
		}
	}
	m := plan.Mutation{Relation: rel, Columns: keys, Parsers: plan.JSONParsers(cache, rel, keys)}
	switch wl.kind {
	case insert:
		m.Kind, m.Payload = plan.Insert, append(append([]byte{'['}, body...), ']')
	case upsert:
		if wl.prefer != "resolution=merge-duplicates, return=minimal" {
			return sqlgen.Statement{}, fmt.Errorf("planWrite rebuilds a merging upsert, not Prefer: %s", wl.prefer)
		}
		m.Kind, m.Payload, m.OnConflict = plan.Insert, append(append([]byte{'['}, body...), ']'), rel.PrimaryKey
	case update:
		m.Kind, m.Payload = plan.Update, body
		m.Where = &plan.Read{Relation: rel, Alias: p.Alias, Where: p.Where, Order: p.Order}
		m.Limit, m.Offset = p.Range.Limit, p.Range.Offset
	}
	p.Where, p.Order, p.Range = nil, nil, apirequest.Range{}
	p.Output, p.Fields, p.Embeds = nil, nil, nil
	return sqlgen.Write(m, p, sqlgen.WriteOptions{
		ReadOptions:   sqlgen.ReadOptions{Representation: apirequest.Representation{Media: apirequest.MediaJSON}, NoBody: true},
		CountInserted: wl.kind == upsert,
		Minimal:       true,
	}), nil
}

// planCall is what executor/invoke.go does for a JSON POST to a function
// returning a scalar: the overload whose parameters are the body's keys,
// those parameters given in declaration order, the body as the arguments.
// The function must not be volatile, so that pgrest runs it read-only.
func planCall(cache *schemacache.Cache, wl *workload) (sqlgen.Statement, error) {
	name, ok := strings.CutPrefix(wl.path, "/rpc/")
	if !ok {
		return sqlgen.Statement{}, fmt.Errorf("%s is not a function's path", wl.path)
	}
	fns := cache.FunctionsNamed(schemaName, name)
	if len(fns) != 1 {
		return sqlgen.Statement{}, fmt.Errorf("want one function %s.%s in the schema cache, found %d", schemaName, name, len(fns))
	}
	fn := fns[0]
	switch {
	case fn.Volatility == 'v':
		return sqlgen.Statement{}, errors.New("the function is volatile: pgrest would run it read-write")
	case fn.Returns.Shape != schemacache.ReturnsScalar || fn.Returns.Set:
		return sqlgen.Statement{}, errors.New("planCall rebuilds calls of functions returning one scalar")
	}
	body := bytes.TrimSpace(wl.reqBody)
	keys, err := objectKeys(body)
	if err != nil {
		return sqlgen.Statement{}, fmt.Errorf("the request body: %w", err)
	}
	c := plan.Call{Function: fn, Args: body}
	for _, p := range fn.Params {
		if slices.Contains(keys, p.Name) {
			c.Given = append(c.Given, p)
		} else if !p.HasDefault {
			return sqlgen.Statement{}, fmt.Errorf("the request body lacks the argument %s", p.Name)
		}
	}
	if len(c.Given) != len(keys) {
		return sqlgen.Statement{}, fmt.Errorf("the request body names arguments %v, the function takes %v", keys, fn.Params)
	}
	return sqlgen.CallFunction(c), nil
}

// objectKeys returns the keys of a JSON object, in order.
func objectKeys(body []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k := t.(string)
		if slices.Contains(keys, k) {
			return nil, fmt.Errorf("key %q repeated", k)
		}
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return keys, nil
}

// env is everything a run sets up.
type env struct {
	cluster   *pgtest.Cluster
	caddyUp   bool
	rawPool   *pgxpool.Pool
	naivePool *pgxpool.Pool
	client    *http.Client
	baseURL   string
	// caddyRawURL is the caddy+raw site, served by the same Caddy as
	// pgrest; caddyRawPool its pool (caddyraw.go).
	caddyRawURL  string
	caddyRawPool *pgxpool.Pool
	// superDSN and authDSN connect to the bench database as a superuser
	// and as the authenticator.
	superDSN, authDSN string
	// db reads the server's CPU time; nil, with dbWhyNot saying why, when
	// it cannot.
	db        *serverCPU
	dbWhyNot  string
	authz     string
	pgVersion string
	workloads []*workload
	// loadgen is the HTTP load generator's process, unless -client in.
	loadgen *clientProcess
	// diagURLs are the base URLs of the -diag-pool sites, by variant name.
	diagURLs map[string]string
	// diagHeaders are the headers the -diag-features variants' requests
	// add, by variant name; header those of this env's requests.
	diagHeaders map[string]http.Header
	header      http.Header
	// routeURLs are the route (H) sites' base URLs, by workload name;
	// ceilingPool is the pipeline (D) variant's pool (ceiling.go).
	routeURLs   map[string]string
	ceilingPool *pgxpool.Pool
	// caddyRawDiagURLs are the -diag-caddy-raw sites' base URLs, by
	// variant name.
	caddyRawDiagURLs map[string]string
	// stopRedis stops the rate limit variants' Redis; nil without one.
	stopRedis func()
}

// close undoes setUp, in reverse.
func (e *env) close() {
	if e.stopRedis != nil {
		defer e.stopRedis()
	}
	if e.loadgen != nil {
		e.loadgen.close()
	}
	if e.rawPool != nil {
		e.rawPool.Close()
	}
	if e.naivePool != nil {
		e.naivePool.Close()
	}
	if e.caddyRawPool != nil {
		e.caddyRawPool.Close()
	}
	if e.ceilingPool != nil {
		e.ceilingPool.Close()
	}
	if e.client != nil {
		e.client.CloseIdleConnections()
	}
	if e.caddyUp {
		_ = pgresttest.Stop()
	}
	if e.cluster != nil {
		e.cluster.Stop()
	}
}

// setUp starts PostgreSQL and pgrest, learns what pgrest answers and
// sets, checks that pgrest sent the statements the baselines will send,
// and that the baselines answer the same. The env it returns must be
// closed even when it returns an error.
func setUp(ctx context.Context, opt options) (*env, error) {
	e := &env{workloads: newWorkloads()}

	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	db, err := pgresttest.SetUp(ctx, "pgrest_bench", pgresttest.SQL("the fixture", fixtureSQL(opt.rows)),
		pgresttest.SQL("the disconnect fixture", disconnectSQL))
	if err != nil {
		return e, err
	}
	e.cluster = db.Cluster
	if e.pgVersion, err = serverVersion(ctx, db.SuperDSN); err != nil {
		return e, err
	}
	authDSN := db.DSNFor("authenticator", authenticatorPassword)
	e.superDSN, e.authDSN = db.SuperDSN, authDSN
	e.db, e.dbWhyNot = findServerCPU(ctx, db.SuperDSN)
	if err := planWorkloads(ctx, authDSN, e.workloads); err != nil {
		return e, err
	}

	diagSites, diagURLs, err := diagPoolSites(authDSN, opt.diagPool)
	if err != nil {
		return e, err
	}
	e.diagURLs = diagURLs
	if opt.rateLimit {
		limitSites, limitURLs, stopRedis, err := rateLimitSites(authDSN, opt.pool)
		if err != nil {
			return e, fmt.Errorf("the rate limit variants: %w", err)
		}
		e.stopRedis = stopRedis
		diagSites += limitSites
		for name, url := range limitURLs {
			e.diagURLs[name] = url
		}
	}
	if opt.costGuard {
		var b bytes.Buffer
		url, err := costGuardSite(&b, authDSN, opt.pool)
		if err != nil {
			return e, fmt.Errorf("the cost guard variant: %w", err)
		}
		diagSites += b.String()
		e.diagURLs[guardName] = url
	}
	if opt.diagFeatures {
		sites, urls, headers, err := featureSites(authDSN, opt.pool)
		if err != nil {
			return e, fmt.Errorf("the feature variants: %w", err)
		}
		diagSites += sites
		for name, url := range urls {
			e.diagURLs[name] = url
		}
		e.diagHeaders = headers
	}
	crSites, crURLs, err := caddyRawDiagSites(opt.diagCaddyRaw)
	if err != nil {
		return e, err
	}
	diagSites += crSites
	e.caddyRawDiagURLs = crURLs
	if err := e.startPgrest(authDSN, opt.pool, diagSites); err != nil {
		return e, err
	}
	maxConc := 0
	for _, c := range opt.conc {
		maxConc = max(maxConc, c)
	}
	e.client = &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		MaxIdleConns:        4 * maxConc, // pgrest's site and caddy+raw's
		MaxIdleConnsPerHost: 2 * maxConc,
		IdleConnTimeout:     5 * time.Minute,
		DisableCompression:  true, // no Accept-Encoding: the body is read as sent
	}}
	token, err := pgresttest.SignHS256(jwtSecret, jwt.MapClaims{
		"role": requestRole,
		"exp":  time.Now().Add(24 * time.Hour).Unix(),
	})
	if err != nil {
		return e, err
	}
	e.authz = "Bearer " + token

	if err := e.learn(ctx); err != nil {
		return e, err
	}
	// The route sites answer with pgrest's bodies, now known: the config
	// is loaded again with them, which starts pgrest again too.
	routes, routeURLs, err := routeSites(e.workloads)
	if err != nil {
		return e, err
	}
	e.routeURLs = routeURLs
	if err := e.startPgrest(authDSN, opt.pool, diagSites+routes); err != nil {
		return e, err
	}
	for _, wl := range e.workloads {
		if err := e.waitReady(ctx, e.baseURL, wl); err != nil {
			return e, err
		}
	}
	if err := e.verifyStatements(ctx); err != nil {
		return e, err
	}
	for _, url := range e.diagURLs {
		if err := e.waitReady(ctx, url, e.workloads[0]); err != nil {
			return e, err
		}
	}
	if e.rawPool, err = newRawPool(ctx, authDSN, opt.pool, e.workloads); err != nil {
		return e, err
	}
	if e.naivePool, err = newNaivePool(ctx, authDSN, opt.pool); err != nil {
		return e, err
	}
	if e.caddyRawPool, err = newRawPool(ctx, authDSN, opt.pool, e.workloads); err != nil {
		return e, err
	}
	if e.ceilingPool, err = newCeilingPool(ctx, authDSN, maxConc, e.workloads); err != nil {
		return e, err
	}
	serveCaddyRaw(e.caddyRawPool, e.ceilingPool, e.workloads)
	for _, wl := range e.workloads {
		type baseline struct {
			name string
			op   op
		}
		baselines := []baseline{{"raw", e.rawOp(wl)}, {"naive", e.naiveOp(wl)}, {"caddy+raw", e.caddyRawOp(wl)},
			{routeVariant, e.routeOp(wl)}, {pipelineVariant, rawOpOn(e.ceilingPool)(wl)},
			{bareVariant, bareOpOn(e.ceilingPool)(wl)}}
		for name, url := range e.caddyRawDiagURLs {
			baselines = append(baselines, baseline{name, e.opAt(url)(wl)})
		}
		for _, v := range baselines {
			if err := v.op(ctx); err != nil {
				return e, fmt.Errorf("%s baseline on %s does not answer as pgrest does: %w", v.name, wl.name, err)
			}
		}
	}
	return e, nil
}

func serverVersion(ctx context.Context, dsn string) (string, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", err
	}
	defer conn.Close(context.Background())
	var v string
	err = conn.QueryRow(ctx, "show server_version").Scan(&v)
	return v, err
}

// startPgrest loads a Caddy config adapted from a Caddyfile, as a user
// would write it, serving pgrest on a free loopback port.
// The same config serves the caddy+raw site (caddyraw.go).
func (e *env) startPgrest(authDSN string, pool int, moreSites string) error {
	rawPort, err := pgresttest.FreePort()
	if err != nil {
		return err
	}
	s, warnings, err := pgresttest.Serve(pgrestDirectives(authDSN, pool),
		pgresttest.Options{LogLevel: "ERROR", Sites: caddyRawSite(rawPort, "") + moreSites})
	if err != nil {
		return err
	}
	e.caddyRawURL = fmt.Sprintf("http://127.0.0.1:%d", rawPort)
	e.caddyUp = true
	if len(warnings) > 0 {
		return fmt.Errorf("adapting the Caddyfile: warning: %s", warnings[0])
	}
	e.baseURL = s.URL
	return nil
}

// pgrestDirectives are the pgrest subdirectives of the bench's Caddyfile.
func pgrestDirectives(authDSN string, pool int) map[string]string {
	return map[string]string{
		"db_uri":       pgresttest.Quote(authDSN),
		"db_schemas":   schemaName,
		"db_anon_role": "web_anon",
		"jwt_secret":   jwtSecret,
		"db_pool":      strconv.Itoa(pool),
	}
}

// newRequest is the request a pgrest op sends for wl, to target: the
// same headers each time, so request.headers is the same for pgrest and
// the baselines.
func (e *env) newRequest(ctx context.Context, wl *workload, target string) (*http.Request, error) {
	var body io.Reader = http.NoBody
	if wl.reqBody != nil {
		body = bytes.NewReader(wl.reqBody)
	}
	req, err := http.NewRequestWithContext(ctx, wl.method, e.baseURL+target, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", e.authz)
	req.Header.Set("Accept", acceptHeader)
	req.Header.Set("User-Agent", userAgent)
	if wl.reqBody != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if wl.prefer != "" {
		req.Header.Set("Prefer", wl.prefer)
	}
	for name, values := range e.header {
		if name == "Prefer" && wl.prefer != "" {
			req.Header.Set(name, wl.prefer+", "+strings.Join(values, ", "))
			continue
		}
		req.Header[name] = values
	}
	return req, nil
}

// send sends wl's request to target and returns the status and body.
func (e *env) send(ctx context.Context, wl *workload, target string, buf *bytes.Buffer) (int, error) {
	req, err := e.newRequest(ctx, wl, target)
	if err != nil {
		return 0, err
	}
	res, err := e.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	buf.Reset()
	_, err = buf.ReadFrom(res.Body)
	return res.StatusCode, err
}

// get sends a plain GET of target, as the read workloads send it.
func (e *env) get(ctx context.Context, target string, buf *bytes.Buffer) (int, error) {
	return e.send(ctx, &workload{method: http.MethodGet}, target, buf)
}

// httpOp is the pgrest variant: one request over a kept-alive connection.
func (e *env) httpOp(wl *workload) op {
	var buf bytes.Buffer
	return func(ctx context.Context) error {
		status, err := e.send(ctx, wl, wl.target, &buf)
		if err != nil {
			return err
		}
		if status != wl.status {
			return fmt.Errorf("status %d, want %d: %.300s", status, wl.status, buf.Bytes())
		}
		return wl.check(buf.Bytes())
	}
}

// check compares a body with the expected one.
func (wl *workload) check(body []byte) error {
	if !bytes.Equal(body, wl.body) {
		return fmt.Errorf("%s: body of %d bytes differs from the expected %d bytes: %.200s",
			wl.name, len(body), len(wl.body), body)
	}
	return nil
}

// requestSettings are the request settings pgrest set, as
// api.bench_request returns them.
type requestSettings struct {
	Role, Claims, Method, Path, Headers, Cookies string
	SearchPath                                   string `json:"search_path"`
}

// twinTarget is where learn sends each workload's request again to see
// its settings: api.bench_request takes the arguments of every POST body
// the workloads send, so the twin request has the same method, headers
// (Content-Length included) and body, and sets the same settings but
// request.path.
const twinTarget = "/rpc/bench_request"

// settingsOf asks pgrest which settings it sets for wl's request, by
// sending the same request to twinTarget.
//
// A function is called with GET or POST, so a PATCH's twin is a POST of
// the same headers and body: its settings are the same but
// request.method, which is set to the PATCH's.
func (e *env) settingsOf(ctx context.Context, wl *workload, buf *bytes.Buffer) (*requestSettings, error) {
	twin := *wl
	if twin.method == http.MethodPatch {
		twin.method = http.MethodPost
	}
	status, err := e.send(ctx, &twin, twinTarget, buf)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("pgrest answers %s %s with %d: %.300s", wl.method, twinTarget, status, buf.Bytes())
	}
	var s requestSettings
	if err := json.Unmarshal(buf.Bytes(), &s); err != nil {
		return nil, fmt.Errorf("%s %s: want the settings object, got %.300s", wl.method, twinTarget, buf.Bytes())
	}
	if s.Role != requestRole || s.Method != twin.method || s.Path != twinTarget ||
		!strings.Contains(s.Headers, `"authorization"`) {
		return nil, fmt.Errorf("pgrest set unexpected request settings: %s", buf.Bytes())
	}
	s.Method = wl.method
	return &s, nil
}

// learn asks pgrest, through HTTP, what each workload answers and which
// request settings it sets, and fills in the workloads. pgrest loads its
// schema cache in the background, so the first answer may be a 503.
func (e *env) learn(ctx context.Context) error {
	var buf bytes.Buffer
	for try := 0; ; try++ {
		status, err := e.get(ctx, twinTarget, &buf)
		if err == nil && status == http.StatusOK {
			break
		}
		if try == 50 || ctx.Err() != nil {
			if err != nil {
				return fmt.Errorf("pgrest does not answer: %w", err)
			}
			return fmt.Errorf("pgrest answers GET %s with %d: %s", twinTarget, status, buf.Bytes())
		}
		time.Sleep(200 * time.Millisecond)
	}

	for _, wl := range e.workloads {
		s, err := e.settingsOf(ctx, wl, &buf)
		if err != nil {
			return fmt.Errorf("%s: %w", wl.name, err)
		}
		// Arguments in the order of settingsSQL, the statement of a
		// request with no app settings.
		wl.settings = [][]byte{[]byte(s.Role), []byte(s.Claims), []byte(s.Method), []byte(wl.path),
			[]byte(s.Headers), []byte(s.Cookies), []byte(s.SearchPath)}
		status, err := e.send(ctx, wl, wl.target, &buf)
		if err != nil {
			return err
		}
		if status != wl.status {
			return fmt.Errorf("pgrest answers %s %s with %d, want %d: %s", wl.method, wl.target, status, wl.status, buf.Bytes())
		}
		if err := wl.checkShape(buf.Bytes()); err != nil {
			return fmt.Errorf("%s %s: %w", wl.method, wl.target, err)
		}
		wl.body = bytes.Clone(buf.Bytes())
	}
	return nil
}

// checkShape checks pgrest's first answer, which becomes the expected
// body: the rows and embeds a read asks for, no body for a minimal
// insert, a number for the call.
func (wl *workload) checkShape(body []byte) error {
	switch wl.kind {
	case insert, upsert, update:
		if len(body) > 0 {
			return fmt.Errorf("want no body, got %.300s", body)
		}
	case call:
		var n json.Number
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&n); err != nil {
			return fmt.Errorf("want a number, got %.300s", body)
		}
	case read:
		var rows []map[string]json.RawMessage
		if err := json.Unmarshal(body, &rows); err != nil || len(rows) != wl.rows {
			return fmt.Errorf("want a JSON array of %d rows, got %.300s", wl.rows, body)
		}
		if wl.nested > 0 {
			for _, row := range rows {
				var reviews []json.RawMessage
				if err := json.Unmarshal(row["item_reviews"], &reviews); err != nil || len(reviews) != wl.nested {
					return fmt.Errorf("want %d item_reviews in each row, got %.300s", wl.nested, body)
				}
			}
		}
	}
	return nil
}

// verifyStatements checks that pgrest sent, for every workload, the very
// SQL text the baselines send, and the settings statement the baselines
// copied.
//
// pgrest prepares each statement on a connection the first time it runs
// there (db_prepared_statements, on by default), and PostgreSQL keeps the
// text of a statement prepared through the protocol exactly as sent, in
// pg_prepared_statements, which shows the statements of the session that
// reads it. So GET /bench_prepared, served by pgrest on one of its pool
// connections, lists exactly what pgrest sent on that connection. learn
// has just sent every workload once, one request at a time; the few
// connections that served them are idle in pgrest's pool. Which idle
// connection a request gets is the pool's choice, so each try reads the
// view with verifyReaders requests at once (the view sleeps 100 ms so they
// overlap), each on a connection of its own: a few tries see every
// statement pgrest prepared. A text rebuilt here that differs from
// pgrest's is never among them, and the run stops.
//
// The alternatives: pg_stat_statements needs shared_preload_libraries (a
// restart of the throwaway server, and a server named by PGREST_TEST_DSN
// may not have it); the server log (log_min_duration_statement = 0) may
// not be readable from here and would need parsing. The prepared
// statements are there on any server, with no settings changed, and the
// texts compare as they are. The arguments are not visible there: the
// settings' are read back from what pgrest set (learn); the main
// statements' are the request's own data (the filter values, the body),
// and every baseline's answer is checked byte for byte against pgrest's.
func (e *env) verifyStatements(ctx context.Context) error {
	const verifyReaders = 16
	want := map[string]string{settingsSQL: "the settings statement"}
	for _, wl := range e.workloads {
		want[wl.mainSQL] = wl.name
	}
	seen := map[string]bool{}
	const tries = 20
	for try := 0; try < tries && len(want) > 0; try++ {
		if try > 0 {
			// A schema cache reload since learn (a late NOTIFY of the
			// fixture's DDL) makes each connection drop its statements
			// at its next request, so a workload missing so far is sent
			// again to be prepared under the current cache.
			if err := e.resendMissing(ctx, want); err != nil {
				return err
			}
		}
		var wg sync.WaitGroup
		reads := make([][]byte, verifyReaders)
		errs := make([]error, verifyReaders)
		for i := range verifyReaders {
			wg.Go(func() {
				var buf bytes.Buffer
				status, err := e.get(ctx, "/bench_prepared", &buf)
				if err == nil && status != http.StatusOK {
					err = fmt.Errorf("pgrest answers GET /bench_prepared with %d: %.300s", status, buf.Bytes())
				}
				reads[i], errs[i] = buf.Bytes(), err
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		for _, read := range reads {
			var rows []struct{ Name, Statement string }
			if err := json.Unmarshal(read, &rows); err != nil {
				return fmt.Errorf("GET /bench_prepared: %w", err)
			}
			for _, r := range rows {
				if !strings.HasPrefix(r.Name, "pgrst_") {
					continue
				}
				seen[r.Statement] = true
				delete(want, r.Statement)
			}
		}
	}
	if len(want) == 0 {
		return nil
	}
	var missing, other []string
	for sql, name := range want {
		missing = append(missing, fmt.Sprintf("%s:\n    %s", name, sql))
	}
	for sql := range seen {
		other = append(other, "    "+sql)
	}
	slices.Sort(missing)
	slices.Sort(other)
	return fmt.Errorf("pgrest did not send the SQL the baselines would send (the rebuild in tests/bench drifted from the executor):\n  %s\npgrest prepared:\n%s",
		strings.Join(missing, "\n  "), strings.Join(other, "\n"))
}

// resendMissing sends once more every workload whose statement want
// still holds.
func (e *env) resendMissing(ctx context.Context, want map[string]string) error {
	var buf bytes.Buffer
	for _, wl := range e.workloads {
		if _, missing := want[wl.mainSQL]; !missing {
			continue
		}
		status, err := e.send(ctx, wl, wl.target, &buf)
		if err != nil {
			return err
		}
		if status != wl.status {
			return fmt.Errorf("pgrest answers %s %s with %d, want %d: %s", wl.method, wl.target, status, wl.status, buf.Bytes())
		}
	}
	return nil
}
