package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
	_ "github.com/pgrest/caddy-pgrest/caddymodule"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schema"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

const (
	// The e2e tests' password, so a server named by PGREST_TEST_DSN that
	// already has their authenticator works here too.
	authenticatorPassword = "authenticator-password"
	// jwtSecret is the HS256 passphrase (48 characters).
	jwtSecret = "pgrest-bench-secret-0123456789abcdefghijklmnopqr"
	// requestRole is the role of the token every request carries.
	requestRole = "webuser"
	schemaName  = "api"
	userAgent   = "pgrest-bench"
	// acceptHeader is every request's Accept.
	acceptHeader = "application/json"
)

// fixtureSQL makes the roles (when absent: they are cluster-wide),
// api.items with %d rows and api.item_reviews with reviewsPerItem reviews
// of each item, indexed on the foreign key as a read-heavy schema would
// be. The view bench_settings shows the request settings pgrest set, so
// the baselines can send the very same values.
const fixtureSQL = `
do $$
begin
	if not exists (select from pg_roles where rolname = 'authenticator') then
		create role authenticator login noinherit password '` + authenticatorPassword + `';
	end if;
	if not exists (select from pg_roles where rolname = 'web_anon') then
		create role web_anon nologin;
	end if;
	if not exists (select from pg_roles where rolname = 'webuser') then
		create role webuser nologin;
	end if;
end
$$;
grant web_anon, webuser to authenticator;

create schema api;
grant usage on schema api to web_anon, webuser;

create table api.items (
	id         int primary key,
	name       text not null,
	price      numeric(10,2) not null,
	created_at timestamptz not null
);
insert into api.items
select i, 'item ' || i, round((i %% 997) * 1.37 + 0.99, 2),
       timestamptz '2024-01-01 00:00:00+00' + i * interval '17 minutes'
from generate_series(1, %d) i;

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

create view api.bench_settings as
select current_user::text as role,
       current_setting('request.jwt.claims', true) as claims,
       current_setting('request.method', true) as method,
       current_setting('request.path', true) as path,
       current_setting('request.headers', true) as headers,
       current_setting('request.cookies', true) as cookies,
       current_setting('search_path') as search_path;

grant select on api.items, api.item_reviews, api.bench_settings to web_anon, webuser;
`

// reviewsPerItem is how many rows of api.item_reviews each item has (the
// 5 in fixtureSQL).
const reviewsPerItem = 5

// workload is one request shape and what it must answer.
type workload struct {
	name   string
	target string // the request's path and query string
	path   string // its path alone, as request.path shows it
	rows   int    // rows in the body, at the top level
	// nested is how many objects each row embeds (item_reviews), or 0.
	nested int
	// mainSQL and mainArgs are the statement pgrest sends for GET target,
	// from planWorkloads.
	mainSQL  string
	mainArgs [][]byte
	mainName string // its prepared statement in the raw baseline
	// body is the expected response body, taken from pgrest's first
	// answer and checked against the baselines'.
	body []byte
	// settings are the settings statement's arguments for this request.
	settings [][]byte
}

func newWorkloads() []*workload {
	mk := func(name, target string, rows, nested int) *workload {
		path, _, _ := strings.Cut(target, "?")
		return &workload{name: name, target: target, path: path, rows: rows, nested: nested, mainName: "bench_" + name}
	}
	return []*workload{
		mk("items_eq", "/items?id=eq.42", 1, 0),
		mk("items_page", "/items?order=id&limit=25", 25, 0),
		mk("items_embed", "/items?select=id,name,item_reviews(stars,body)&id=lt.26&order=id", 25, reviewsPerItem),
	}
}

// readMedia are the representations the executor offers for a table.
var readMedia = []apirequest.MediaType{apirequest.MediaJSON, apirequest.MediaSingleObject, apirequest.MediaCSV}

// planWorkloads gives each workload the statement pgrest sends for it, by
// running pgrest's own pipeline in this process: the schema cache loaded
// from the bench database as pgrest loads it (schema.Load, as the
// authenticator), then ParseQuery, Negotiate, BuildRead and sqlgen.Read
// with the options the executor derives from the request and from the
// Caddyfile of startPgrest (neither db_max_rows nor
// db_aggregates_enabled: their defaults). The baselines then send that
// SQL text and those arguments, so they cannot drift from pgrest.
func planWorkloads(ctx context.Context, authDSN string, workloads []*workload) error {
	conn, err := pgx.Connect(ctx, authDSN)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	cache, err := schema.Load(ctx, conn, []string{schemaName})
	if err != nil {
		return fmt.Errorf("loading the schema cache: %w", err)
	}
	for _, wl := range workloads {
		path, rawQuery, _ := strings.Cut(wl.target, "?")
		rel, ok := cache.Relation(schemaName, strings.TrimPrefix(path, "/"))
		if !ok {
			return fmt.Errorf("%s: no relation %s in the schema cache", wl.name, path)
		}
		q, aerr := apirequest.ParseQuery(rawQuery)
		if aerr != nil {
			return fmt.Errorf("%s: %s", wl.name, aerr.Message)
		}
		rep, aerr := apirequest.Negotiate(acceptHeader, readMedia)
		if aerr != nil {
			return fmt.Errorf("%s: %s", wl.name, aerr.Message)
		}
		p, aerr := plan.BuildRead(cache, rel, q, plan.ReadOptions{})
		if aerr != nil {
			return fmt.Errorf("%s: %s %s", wl.name, aerr.Code, aerr.Message)
		}
		main, explain := sqlgen.Read(p, sqlgen.ReadOptions{Representation: rep})
		if explain != nil {
			return fmt.Errorf("%s: the baselines send no EXPLAIN", wl.name)
		}
		wl.mainSQL, wl.mainArgs = main.SQL, main.Args
	}
	return nil
}

// env is everything a run sets up.
type env struct {
	cluster   *pgtest.Cluster
	caddyUp   bool
	rawPool   *pgxpool.Pool
	naivePool *pgxpool.Pool
	client    *http.Client
	baseURL   string
	authz     string
	pgVersion string
	workloads []*workload
}

// close undoes setUp, in reverse.
func (e *env) close() {
	if e.rawPool != nil {
		e.rawPool.Close()
	}
	if e.naivePool != nil {
		e.naivePool.Close()
	}
	if e.client != nil {
		e.client.CloseIdleConnections()
	}
	if e.caddyUp {
		_ = caddy.Stop()
	}
	if e.cluster != nil {
		e.cluster.Stop()
	}
}

// setUp checks the baseline's copy of pgrest's SQL, starts PostgreSQL and
// pgrest, learns what pgrest answers and sets, and checks that the
// baselines answer the same. The env it returns must be closed even when
// it returns an error.
func setUp(ctx context.Context, opt options) (*env, error) {
	if err := checkExecutorSQL(); err != nil {
		return nil, err
	}
	e := &env{workloads: newWorkloads()}

	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	var err error
	if e.cluster, err = pgtest.Start(); err != nil {
		return e, err
	}
	superDSN, err := e.cluster.NewDatabase(ctx, "pgrest_bench")
	if err != nil {
		return e, err
	}
	if err := pgtest.ExecSQL(ctx, superDSN, fmt.Sprintf(fixtureSQL, opt.rows, opt.rows)); err != nil {
		return e, fmt.Errorf("loading the fixture: %w", err)
	}
	if e.pgVersion, err = serverVersion(ctx, superDSN); err != nil {
		return e, err
	}
	authDSN := pgtest.DSNFor(superDSN, "authenticator", authenticatorPassword)
	if err := planWorkloads(ctx, authDSN, e.workloads); err != nil {
		return e, err
	}

	if err := e.startPgrest(authDSN, opt.pool); err != nil {
		return e, err
	}
	maxConc := 0
	for _, c := range opt.conc {
		maxConc = max(maxConc, c)
	}
	e.client = &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		MaxIdleConns:        2 * maxConc,
		MaxIdleConnsPerHost: 2 * maxConc,
		IdleConnTimeout:     5 * time.Minute,
		DisableCompression:  true, // no Accept-Encoding: the body is read as sent
	}}
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"role": requestRole,
		"exp":  time.Now().Add(24 * time.Hour).Unix(),
	}).SignedString([]byte(jwtSecret))
	if err != nil {
		return e, err
	}
	e.authz = "Bearer " + token

	if err := e.learn(ctx); err != nil {
		return e, err
	}
	if e.rawPool, err = newRawPool(ctx, authDSN, opt.pool, e.workloads); err != nil {
		return e, err
	}
	if e.naivePool, err = newNaivePool(ctx, authDSN, opt.pool); err != nil {
		return e, err
	}
	for _, wl := range e.workloads {
		for _, v := range []struct {
			name string
			op   op
		}{{"raw", e.rawOp(wl)}, {"naive", e.naiveOp(wl)}} {
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
func (e *env) startPgrest(authDSN string, pool int) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	caddyfile := fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
	log {
		level ERROR
	}
}
http://127.0.0.1:%d {
	pgrest {
		db_uri %s
		db_schemas %s
		db_anon_role web_anon
		jwt_secret %s
		db_pool %d
	}
}
`, port, authDSN, schemaName, jwtSecret, pool)
	cfg, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), nil)
	if err != nil {
		return fmt.Errorf("adapting the Caddyfile: %w", err)
	}
	if len(warnings) > 0 {
		return fmt.Errorf("adapting the Caddyfile: warning: %s", warnings[0].Message)
	}
	if err := caddy.Load(cfg, true); err != nil {
		return fmt.Errorf("loading the Caddy config: %w", err)
	}
	e.caddyUp = true
	e.baseURL = fmt.Sprintf("http://127.0.0.1:%d", port)
	return nil
}

// newRequest is the request every pgrest op sends: the same headers each
// time, so request.headers is the same for pgrest and the baselines.
func (e *env) newRequest(ctx context.Context, path string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.baseURL+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", e.authz)
	req.Header.Set("Accept", acceptHeader)
	req.Header.Set("User-Agent", userAgent)
	return req, nil
}

// get sends one request and returns the status and body.
func (e *env) get(ctx context.Context, path string, buf *bytes.Buffer) (int, error) {
	req, err := e.newRequest(ctx, path)
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

// httpOp is the pgrest variant: one GET over a kept-alive connection.
func (e *env) httpOp(wl *workload) op {
	var buf bytes.Buffer
	return func(ctx context.Context) error {
		status, err := e.get(ctx, wl.target, &buf)
		if err != nil {
			return err
		}
		if status != http.StatusOK {
			return fmt.Errorf("status %d: %.300s", status, buf.Bytes())
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

// learn asks pgrest, through HTTP, what each workload answers and which
// request settings it sets, and fills in the workloads. pgrest loads its
// schema cache in the background, so the first answer may be a 503.
func (e *env) learn(ctx context.Context) error {
	var buf bytes.Buffer
	var status int
	var err error
	for try := 0; ; try++ {
		status, err = e.get(ctx, "/bench_settings", &buf)
		if err == nil && status == http.StatusOK {
			break
		}
		if try == 50 || ctx.Err() != nil {
			if err != nil {
				return fmt.Errorf("pgrest does not answer: %w", err)
			}
			return fmt.Errorf("pgrest answers GET /bench_settings with %d: %s", status, buf.Bytes())
		}
		time.Sleep(200 * time.Millisecond)
	}
	var set []struct {
		Role, Claims, Method, Path, Headers, Cookies string
		SearchPath                                   string `json:"search_path"`
	}
	if err := json.Unmarshal(buf.Bytes(), &set); err != nil || len(set) != 1 {
		return fmt.Errorf("GET /bench_settings: want one row, got %s", buf.Bytes())
	}
	s := set[0]
	if s.Role != requestRole || s.Method != http.MethodGet || s.Path != "/bench_settings" ||
		!strings.Contains(s.Headers, `"authorization"`) {
		return fmt.Errorf("pgrest set unexpected request settings: %s", buf.Bytes())
	}

	for _, wl := range e.workloads {
		// Arguments in the order of settingsSQL; "{}" is the JSON of no
		// app_settings, as pgrest marshals it.
		wl.settings = [][]byte{[]byte(s.Role), []byte(s.Claims), []byte(s.Method), []byte(wl.path),
			[]byte(s.Headers), []byte(s.Cookies), []byte(s.SearchPath), []byte("{}")}
		status, err := e.get(ctx, wl.target, &buf)
		if err != nil {
			return err
		}
		if status != http.StatusOK {
			return fmt.Errorf("pgrest answers GET %s with %d: %s", wl.target, status, buf.Bytes())
		}
		var rows []map[string]json.RawMessage
		if err := json.Unmarshal(buf.Bytes(), &rows); err != nil || len(rows) != wl.rows {
			return fmt.Errorf("GET %s: want a JSON array of %d rows, got %.300s", wl.target, wl.rows, buf.Bytes())
		}
		if wl.nested > 0 {
			for _, row := range rows {
				var reviews []json.RawMessage
				if err := json.Unmarshal(row["item_reviews"], &reviews); err != nil || len(reviews) != wl.nested {
					return fmt.Errorf("GET %s: want %d item_reviews in each row, got %.300s", wl.target, wl.nested, buf.Bytes())
				}
			}
		}
		wl.body = bytes.Clone(buf.Bytes())
	}
	return nil
}
