// Package roundtrip counts the protocol round trips pgrest takes per
// request, against a real PostgreSQL: a write or a call that writes takes
// one, its checks (a singular response, max-affected, a PUT's key)
// included, since a failed check rolls back in SQL within the same round
// trip. The executor runs over a pool whose connections count the
// client's turns: a write to the server after the server has answered
// starts a new round trip.
package roundtrip

import (
	"context"
	"encoding/json"
	"net"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgrest/caddy-pgrest/executor"
	"github.com/pgrest/caddy-pgrest/jwtauth"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

var superDSN, authDSN string

func TestMain(m *testing.M) {
	db := pgresttest.MustSetUp("pgrest_roundtrip", pgresttest.Files("testdata/*.sql"))
	superDSN, authDSN = db.SuperDSN, db.AuthenticatorDSN()
	db.Run(m)
}

// tripConn counts round trips: a write after the server has answered is
// a new one.
type tripConn struct {
	net.Conn
	trips    *atomic.Int64
	mu       sync.Mutex
	answered bool
}

func (c *tripConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	if c.answered {
		c.trips.Add(1)
		c.answered = false
	}
	c.mu.Unlock()
	return c.Conn.Write(b)
}

func (c *tripConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.mu.Lock()
		c.answered = true
		c.mu.Unlock()
	}
	return n, err
}

// appName names the executor's connections in pg_stat_activity.
const appName = "pgrest-roundtrip"

// counted is an executor over a one-connection pool whose round trips
// are counted.
type counted struct {
	exec  *executor.Executor
	trips *atomic.Int64
}

func newCounted(t *testing.T, cfg executor.Config, planMode string) *counted {
	t.Helper()
	pc, err := pgxpool.ParseConfig(authDSN)
	if err != nil {
		t.Fatal(err)
	}
	c := &counted{trips: &atomic.Int64{}}
	dialer := &net.Dialer{}
	pc.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &tripConn{Conn: conn, trips: c.trips, answered: true}, nil
	}
	// One connection, never pinged: every round trip is a request's.
	pc.MaxConns, pc.MinConns = 1, 0
	pc.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	pc.ConnConfig.RuntimeParams["application_name"] = appName
	if planMode != "" {
		pc.ConnConfig.RuntimeParams["plan_cache_mode"] = planMode
	}
	ctx, cancel := context.WithCancel(context.Background())
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Schemas = []string{"api"}
	exec, err := executor.New(pool, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	exec.Start(ctx)
	t.Cleanup(func() { cancel(); pool.Close() })
	deadline := time.Now().Add(30 * time.Second)
	for exec.Ready(ctx) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the schema cache did not load")
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.exec = exec
	return c
}

// serve answers one request and returns the response and the round trips
// it took. headers alternate name, value.
func (c *counted) serve(t *testing.T, method, target, body string, headers ...string) (*httptest.ResponseRecorder, int64) {
	t.Helper()
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	before := c.trips.Load()
	c.exec.Serve(w, r, jwtauth.Identity{Role: "web_anon", ClaimsJSON: `{"role":"web_anon"}`})
	return w, c.trips.Load() - before
}

// reset loads the seed rows.
func reset(t *testing.T) {
	t.Helper()
	pgresttest.SQLInt(t, superDSN, "select 1 from private.reset()")
}

// items is the table's rows as JSON, in id order.
func items(t *testing.T) string {
	t.Helper()
	return string(pgresttest.SQLJSON(t, superDSN, "select id, name from api.items order by id"))
}

const seed = `[{"id":1,"name":"one"}, {"id":2,"name":"two"}, {"id":3,"name":"three"}]`

// expectIdle checks that the executor's connection is idle, not inside a
// transaction.
func expectIdle(t *testing.T) {
	t.Helper()
	states := string(pgresttest.SQLJSON(t, superDSN,
		"select state from pg_stat_activity where application_name = $1", appName))
	if states != `[{"state":"idle"}]` {
		t.Errorf("the connection's state is %s, want idle", states)
	}
}

// oneTrip is a request that takes one round trip.
type oneTrip struct {
	name                 string
	method, target, body string
	headers              []string
	status               int
	// want is the body expected, exactly; rows the table after.
	want, rows string
}

var oneTripCases = []oneTrip{
	{name: "an insert", method: "POST", target: "/items", body: `{"id": 10, "name": "ten"}`,
		status: 201, want: "",
		rows: `[{"id":1,"name":"one"}, {"id":2,"name":"two"}, {"id":3,"name":"three"}, {"id":10,"name":"ten"}]`},
	{name: "a PATCH with return=representation", method: "PATCH", target: "/items?id=eq.2", body: `{"name": "deux"}`,
		headers: []string{"Prefer", "return=representation"}, status: 200, want: `[{"id":2,"name":"deux"}]`,
		rows: `[{"id":1,"name":"one"}, {"id":2,"name":"deux"}, {"id":3,"name":"three"}]`},
	{name: "a VOLATILE function returning a row", method: "POST", target: "/rpc/add_item", body: `{"id": 4, "name": "four"}`,
		status: 200, want: `{"id":4,"name":"four"}`,
		rows: `[{"id":1,"name":"one"}, {"id":2,"name":"two"}, {"id":3,"name":"three"}, {"id":4,"name":"four"}]`},
	{name: "a VOLATILE function returning a scalar", method: "POST", target: "/rpc/touch", body: `{"id": 3}`,
		status: 200, want: `3`,
		rows: `[{"id":1,"name":"one"}, {"id":2,"name":"two"}, {"id":3,"name":"three!"}]`},
	{name: "a singular PATCH of one row passes its check and commits", method: "PATCH", target: "/items?id=eq.1", body: `{"name": "un"}`,
		headers: []string{"Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json"},
		status:  200, want: `{"id":1,"name":"un"}`,
		rows: `[{"id":1,"name":"un"}, {"id":2,"name":"two"}, {"id":3,"name":"three"}]`},
	{name: "a DELETE within max-affected commits", method: "DELETE", target: "/items?id=eq.3",
		headers: []string{"Prefer", "handling=strict, max-affected=1"}, status: 204, want: "",
		rows: `[{"id":1,"name":"one"}, {"id":2,"name":"two"}]`},
	{name: "a PUT commits", method: "PUT", target: "/items?id=eq.5", body: `{"id": 5, "name": "five"}`,
		status: 204, want: "",
		rows: `[{"id":1,"name":"one"}, {"id":2,"name":"two"}, {"id":3,"name":"three"}, {"id":5,"name":"five"}]`},

	// Failed checks roll back in the same round trip.
	{name: "a singular PATCH of two rows is PGRST116 and rolls back", method: "PATCH", target: "/items?id=lt.3", body: `{"name": "x"}`,
		headers: []string{"Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json"}, status: 406,
		want: `{"code":"PGRST116","details":"The result contains 2 rows","hint":null,"message":"Cannot coerce the result to a single JSON object"}`,
		rows: seed},
	{name: "a singular insert of two rows is PGRST116 and rolls back", method: "POST", target: "/items",
		body:    `[{"id": 11, "name": "a"}, {"id": 12, "name": "b"}]`,
		headers: []string{"Accept", "application/vnd.pgrst.object+json"}, status: 406,
		want: `{"code":"PGRST116","details":"The result contains 2 rows","hint":null,"message":"Cannot coerce the result to a single JSON object"}`,
		rows: seed},
	{name: "a DELETE past max-affected is PGRST124 and rolls back", method: "DELETE", target: "/items?id=lt.3",
		headers: []string{"Prefer", "handling=strict, max-affected=1"}, status: 400,
		want: `{"code":"PGRST124","details":"The query affects 2 rows","hint":null,"message":"Query result exceeds max-affected preference constraint"}`,
		rows: seed},
	{name: "a singular PATCH past max-affected is PGRST116, checked first as in PostgREST", method: "PATCH", target: "/items?id=lt.4",
		body: `{"name": "x"}`, headers: []string{"Accept", "application/vnd.pgrst.object+json", "Prefer", "handling=strict, max-affected=1"},
		status: 406,
		want:   `{"code":"PGRST116","details":"The result contains 3 rows","hint":null,"message":"Cannot coerce the result to a single JSON object"}`,
		rows:   seed},
	{name: "a call past max-affected is PGRST124 and rolls back", method: "POST", target: "/rpc/add_items", body: `{"ids": [20, 21]}`,
		headers: []string{"Prefer", "handling=strict, max-affected=1"}, status: 400,
		want: `{"code":"PGRST124","details":"The query affects 2 rows","hint":null,"message":"Query result exceeds max-affected preference constraint"}`,
		rows: seed},
	{name: "a scalar call past max-affected is PGRST124 and rolls back", method: "POST", target: "/rpc/touch_all", body: `{}`,
		headers: []string{"Prefer", "handling=strict, max-affected=2"}, status: 400,
		want: `{"code":"PGRST124","details":"The query affects 3 rows","hint":null,"message":"Query result exceeds max-affected preference constraint"}`,
		rows: seed},
	{name: "a singular call of two rows is PGRST116 and rolls back", method: "POST", target: "/rpc/add_items", body: `{"ids": [20, 21]}`,
		headers: []string{"Accept", "application/vnd.pgrst.object+json"}, status: 406,
		want: `{"code":"PGRST116","details":"The result contains 2 rows","hint":null,"message":"Cannot coerce the result to a single JSON object"}`,
		rows: seed},
	{name: "a PUT whose body misses the URL's key is PGRST115 and rolls back", method: "PUT", target: "/items?id=eq.5",
		body: `[{"id": 6, "name": "six"}]`, status: 400,
		want: `{"code":"PGRST115","details":null,"hint":null,"message":"Payload values do not match URL in primary key column(s)"}`,
		rows: seed},

	// PostgREST reads response.headers after its transaction committed:
	// an invalid one is an error response, and the write is kept.
	{name: "an invalid response.headers is PGRST111 and the write is kept", method: "POST", target: "/rpc/bad_headers", body: `{"id": 7}`,
		status: 500,
		want:   `{"code":"PGRST111","details":null,"hint":null,"message":"response.headers guc must be a JSON array composed of objects with a single key and a string value"}`,
		rows:   `[{"id":1,"name":"one"}, {"id":2,"name":"two"}, {"id":3,"name":"three"}, {"id":7,"name":"bad headers"}]`},

	// Prefer: tx=rollback is decided up front.
	{name: "tx=rollback rolls back", method: "POST", target: "/items", body: `{"id": 10, "name": "ten"}`,
		headers: []string{"Prefer", "tx=rollback"}, status: 201, want: "", rows: seed},
	{name: "tx=rollback answers a failed check", method: "DELETE", target: "/items?id=lt.3",
		headers: []string{"Prefer", "tx=rollback, handling=strict, max-affected=1"}, status: 400,
		want: `{"code":"PGRST124","details":"The query affects 2 rows","hint":null,"message":"Query result exceeds max-affected preference constraint"}`,
		rows: seed},
}

func TestWritesAndCallsTakeOneRoundTrip(t *testing.T) {
	// Unnamed statements are planned with their arguments as constants
	// (a custom plan), as are a prepared statement's first executions; a
	// guard's error must not be folded into a constant, raised whatever
	// the result, by either kind of plan.
	variants := []struct {
		name     string
		prepared bool
		planMode string
	}{
		{"prepared statements", true, ""},
		{"prepared statements with generic plans", true, "force_generic_plan"},
		{"no prepared statements", false, ""},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			c := newCounted(t, executor.Config{PreparedStatements: v.prepared, TxEnd: executor.TxCommitAllowOverride}, v.planMode)
			for _, tc := range oneTripCases {
				t.Run(tc.name, func(t *testing.T) {
					reset(t)
					// Twice: the first prepares its statements on the
					// connection, the second finds them prepared.
					for run := range 2 {
						if run == 1 {
							reset(t)
						}
						w, trips := c.serve(t, tc.method, tc.target, tc.body, tc.headers...)
						if w.Code != tc.status {
							t.Fatalf("run %d: status %d, want %d: %s", run, w.Code, tc.status, w.Body)
						}
						if got := w.Body.String(); got != tc.want && !jsonEqual(got, tc.want) {
							t.Errorf("run %d: body %s, want %s", run, got, tc.want)
						}
						if trips != 1 {
							t.Errorf("run %d: %d round trips, want 1", run, trips)
						}
						if got := items(t); !jsonEqual(got, tc.rows) {
							t.Errorf("run %d: rows %s, want %s", run, got, tc.rows)
						}
						expectIdle(t)
					}
					// The connection serves the next request.
					w, trips := c.serve(t, "GET", "/items?id=eq.1&select=id", "")
					if w.Code != 200 || strings.TrimSpace(w.Body.String()) != `[{"id":1}]` || trips != 1 {
						t.Errorf("the next read: %d %s in %d round trips", w.Code, w.Body, trips)
					}
				})
			}
		})
	}
}

// A failed statement rolls back and leaves the connection idle, in
// whatever round trips it takes.
func TestAFailedWriteLeavesTheConnectionIdle(t *testing.T) {
	c := newCounted(t, executor.Config{PreparedStatements: true}, "")
	reset(t)
	w, _ := c.serve(t, "POST", "/items", `[{"id": 30, "name": "x"}, {"id": 1, "name": "dup"}]`)
	if w.Code != 409 {
		t.Fatalf("status %d, want 409: %s", w.Code, w.Body)
	}
	if got := items(t); !jsonEqual(got, seed) {
		t.Errorf("rows %s, want the seed", got)
	}
	expectIdle(t)
	w, trips := c.serve(t, "POST", "/items", `{"id": 30, "name": "x"}`)
	if w.Code != 201 || trips != 1 {
		t.Errorf("the next write: %d %s in %d round trips", w.Code, w.Body, trips)
	}
}

// jsonEqual says whether two JSON texts hold the same value.
func jsonEqual(a, b string) bool {
	var va, vb any
	if json.Unmarshal([]byte(a), &va) != nil || json.Unmarshal([]byte(b), &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// A failed guard on a connection's first write still runs the COMMIT
// after the guard's Sync (rolling back), and prepares it there when the
// connection had not: the next write on the connection must find it
// prepared rather than prepare it again (42P05, "prepared statement
// already exists"). So must a main statement that fails before the guard.
func TestAFailedCheckOnAFreshConnectionLeavesItsStatementsKnown(t *testing.T) {
	for _, first := range []struct {
		name, method, target, body string
		headers                    []string
		status                     int
	}{
		{"a failed guard", "PATCH", "/items?id=lt.3", `{"name": "x"}`,
			[]string{"Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json"}, 406},
		{"a main statement failing before its guard", "POST", "/items", `[{"id": 31, "name": "x"}, {"id": 1, "name": "dup"}]`,
			[]string{"Accept", "application/vnd.pgrst.object+json"}, 409},
	} {
		t.Run(first.name, func(t *testing.T) {
			c := newCounted(t, executor.Config{PreparedStatements: true}, "")
			reset(t)
			w, trips := c.serve(t, first.method, first.target, first.body, first.headers...)
			if w.Code != first.status || trips != 1 {
				t.Fatalf("the first write: %d %s in %d round trips, want %d in 1", w.Code, w.Body, trips, first.status)
			}
			if got := items(t); !jsonEqual(got, seed) {
				t.Errorf("rows %s, want the seed", got)
			}
			expectIdle(t)
			w, trips = c.serve(t, "POST", "/items", `{"id": 30, "name": "x"}`)
			if w.Code != 201 || trips != 1 {
				t.Errorf("the next write: %d %s in %d round trips", w.Code, w.Body, trips)
			}
		})
	}
}
