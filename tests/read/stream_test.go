package read

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/executor"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// streamSQL is the fixture of the streamed reads: a table of rows of
// varied sizes, some NULLs; computed columns that set the response's
// header and status and leave a session-level setting behind, which the
// session reset must undo; a view large enough to fill the sockets
// between PostgreSQL, pgrest and a client that does not read; and
// functions that say which backend serves and what it was left with.
const streamSQL = `
create schema api;
grant usage on schema api to web_anon;
create table api.big (id int primary key, name text not null, note text);
insert into api.big
select i, 'row ' || i, case when i % 3 = 0 then null else repeat('x', i % 50) || '",\' end
from generate_series(1, 3000) i;
create function api.marked(api.big) returns text language sql volatile as $$
  select pg_catalog.set_config('response.headers', '[{"X-Marked": "yes"}]', true)
      || pg_catalog.set_config('stream.leak', 'leaked', false)
$$;
create function api.accepted(api.big) returns text language sql volatile as $$
  select pg_catalog.set_config('response.status', '202', true)
$$;
create view api.huge as select i as id, repeat('y', 200) as pad from generate_series(1, 300000) i;
create function api.backend_pid() returns int language sql stable as 'select pg_catalog.pg_backend_pid()';
create function api.leak() returns text language sql stable as $$select pg_catalog.current_setting('stream.leak', true)$$;
grant select on api.big, api.huge to web_anon;
`

var streamDB = &extraDB{name: "pgrest_read_stream", sql: streamSQL + streamRPCSQL, timeout: time.Minute}

// startStreamServer serves the stream fixture with one connection in the
// pool, so that consecutive requests share it.
func startStreamServer(t *testing.T) *server {
	t.Helper()
	return startServer(t, "db_uri "+streamDB.appDSN(t), "db_schemas api", "db_pool 1")
}

// withStreamBound sets the streaming bound for the rest of the test.
func withStreamBound(t *testing.T, n int) {
	previous := executor.SetStreamBound(n)
	t.Cleanup(func() { executor.SetStreamBound(previous) })
}

// TestStreamedReadMatchesWholeRead asks each read twice, built whole (the
// bound past any body) and streamed (a one-byte bound): the status, the
// body and the headers must be the same, but for the length, which a
// streamed body goes without.
func TestStreamedReadMatchesWholeRead(t *testing.T) {
	s := startStreamServer(t)
	cases := []struct {
		name, path string
		headers    []string
	}{
		{"json", "/big?order=id", nil},
		{"json with embedded quotes and nulls", "/big?select=id,note&id=lt.50", nil},
		{"stripped nulls", "/big?order=id.desc", []string{"Accept", "application/vnd.pgrst.array+json;nulls=stripped"}},
		{"csv", "/big?order=id", []string{"Accept", "text/csv"}},
		{"empty json", "/big?id=lt.0", nil},
		{"empty csv", "/big?id=lt.0", []string{"Accept", "text/csv"}},
		{"one row", "/big?id=eq.7", nil},
		{"exact count and a range", "/big?order=id", []string{"Prefer", "count=exact", "Range", "10-1009"}},
		{"exact count with limit and offset", "/big?order=id&limit=500&offset=20", []string{"Prefer", "count=exact"}},
		{"planned count", "/big?order=id", []string{"Prefer", "count=planned"}},
		{"response.headers set by a computed column", "/big?select=id,marked&order=id", nil},
		{"response.status set by a computed column", "/big?select=id,accepted&order=id", []string{"Accept", "text/csv"}},
		{"singular, one row", "/big?id=eq.3", []string{"Accept", "application/vnd.pgrst.object+json"}},
		{"singular, many rows", "/big?id=lt.10", []string{"Accept", "application/vnd.pgrst.object+json"}},
		{"range past the end", "/big?offset=5000", []string{"Prefer", "count=exact"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			withStreamBound(t, 1<<40)
			whole := s.Get(t, c.path, c.headers...)
			executor.SetStreamBound(1)
			streamed := s.Get(t, c.path, c.headers...)
			sameAnswer(t, streamed, whole, "Content-Type", "Content-Range", "Content-Location", "Preference-Applied", "Vary", "X-Marked")
		})
	}
}

// sameAnswer fails unless the streamed response is the whole one byte for
// byte: status, body and the headers named. Only the whole one carries a
// Content-Length.
func sameAnswer(t *testing.T, streamed, whole *pgresttest.Response, headers ...string) {
	t.Helper()
	if streamed.Status != whole.Status {
		t.Fatalf("status %d streamed, %d whole", streamed.Status, whole.Status)
	}
	if string(streamed.Body) != string(whole.Body) {
		t.Fatalf("bodies differ:\nstreamed %.300q\nwhole    %.300q", streamed.Body, whole.Body)
	}
	for _, h := range headers {
		if got, want := streamed.Header.Values(h), whole.Header.Values(h); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: %q streamed, %q whole", h, got, want)
		}
	}
	if whole.Header.Get("Content-Length") == "" {
		t.Errorf("the whole response has no Content-Length")
	}
}

// TestStreamedReadHeaders checks what a streamed response says before its
// rows are all read: the page's row count, the total, the applied
// preference, and what the rows' expressions set.
func TestStreamedReadHeaders(t *testing.T) {
	s := startStreamServer(t)
	withStreamBound(t, 1)
	res := s.Get(t, "/big?select=id,marked,accepted&order=id&offset=100", "Prefer", "count=exact")
	if res.Status != http.StatusAccepted {
		t.Fatalf("status %d, want 202 from response.status; body %.200s", res.Status, res.Body)
	}
	want := map[string]string{
		"Content-Range":      "100-2999/3000",
		"Preference-Applied": "count=exact",
		"Content-Type":       "application/json; charset=utf-8",
		"X-Marked":           "yes",
		"Content-Length":     "",
	}
	for h, v := range want {
		if got := res.Header.Get(h); got != v {
			t.Errorf("%s: %q, want %q", h, got, v)
		}
	}
	if n := len(rows(t, &pgresttest.Response{Status: http.StatusOK, Body: res.Body})); n != 2900 {
		t.Errorf("%d rows, want 2900", n)
	}
	head := s.Head(t, "/big?order=id", "Prefer", "count=exact")
	if head.Status != http.StatusOK || len(head.Body) != 0 || head.Header.Get("Content-Range") != "0-2999/3000" {
		t.Errorf("HEAD: status %d, Content-Range %q, %d bytes of body", head.Status, head.Header.Get("Content-Range"), len(head.Body))
	}
}

// TestStreamedReadResetsItsConnection: a streamed read leaves its
// connection idle with its session reset, and the next request uses it.
func TestStreamedReadResetsItsConnection(t *testing.T) {
	s := startStreamServer(t)
	withStreamBound(t, 1)
	pid := s.Get(t, "/rpc/backend_pid")
	res := s.Get(t, "/big?select=id,marked")
	if res.Status != http.StatusOK || res.Header.Get("Content-Length") != "" {
		t.Fatalf("status %d, Content-Length %q: want a streamed 200", res.Status, res.Header.Get("Content-Length"))
	}
	checkNoLeak(t, s)
	if again := s.Get(t, "/rpc/backend_pid"); string(again.Body) != string(pid.Body) {
		t.Errorf("backend %s after the streamed read, %s before: the connection was not reused", again.Body, pid.Body)
	}
}

// TestStreamedReadAbortsOnALateError: when the database fails after the
// header went out, the client sees a broken response, not a short body
// with a 200; the pool serves on.
func TestStreamedReadAbortsOnALateError(t *testing.T) {
	s := startStreamServer(t)
	withStreamBound(t, 1)
	res, body := startRead(t, s, "/huge")
	defer res.Body.Close()
	// The backend is sending the rows, blocked on sockets nobody reads.
	n := pgresttest.SQLInt(t, streamDB.superDSN(t), "select count(pg_catalog.pg_terminate_backend(pid)) from pg_catalog.pg_stat_activity "+
		"where query like '%pgrst_rows%' and pid <> pg_catalog.pg_backend_pid() and datname = current_database()")
	if n != 1 {
		t.Fatalf("terminated %d backends, want the one streaming", n)
	}
	if _, err := io.Copy(io.Discard, body); err == nil {
		t.Fatal("the body read to its end: a truncated body passed for a whole one")
	}
	checkServesOn(t, s)
}

// TestStreamedReadClientGoneCleansUp: a client that hangs up mid-body
// leaves no transaction open, and its connection's session is reset.
func TestStreamedReadClientGoneCleansUp(t *testing.T) {
	s := startStreamServer(t)
	withStreamBound(t, 1)
	res, body := startRead(t, s, "/huge?select=id,pad")
	if _, err := body.Peek(1 << 10); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	checkServesOn(t, s)
	res, body = startRead(t, s, "/big?select=id,marked")
	_, _ = body.Peek(16)
	res.Body.Close()
	checkServesOn(t, s)
	checkNoLeak(t, s)
}

// startRead sends a GET and returns the response once its header is in,
// which must be a streamed 200.
func startRead(t *testing.T, s *server, path string) (*http.Response, *bufio.Reader) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := client.Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || res.ContentLength != -1 {
		res.Body.Close()
		t.Fatalf("status %d, length %d: want a streamed 200", res.StatusCode, res.ContentLength)
	}
	return res, bufio.NewReader(res.Body)
}

// checkServesOn waits until no backend of the fixture's database is left
// in a transaction or running a streamed read, then checks that the pool
// answers.
func checkServesOn(t *testing.T, s *server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		busy, err := pgresttest.QueryInt(ctx, streamDB.superDSN(t), "select count(*) from pg_catalog.pg_stat_activity "+
			"where datname = current_database() and pid <> pg_catalog.pg_backend_pid() "+
			"and (state like 'idle in transaction%' or (state = 'active' and query like '%pgrst_rows%'))")
		if err == nil && busy == 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal(errors.Join(fmt.Errorf("%d backends still in a transaction", busy), err))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if res := s.Get(t, "/big?id=eq.1&select=id"); res.Status != http.StatusOK || string(res.Body) != `[{"id":1}]` {
		t.Fatalf("after the aborted read: status %d, body %s", res.Status, res.Body)
	}
}

// checkNoLeak checks that the next request sees nothing of the
// session-level setting a streamed request's function left behind.
func checkNoLeak(t *testing.T, s *server) {
	t.Helper()
	if leak := s.Get(t, "/rpc/leak"); string(leak.Body) != "null" && string(leak.Body) != `""` {
		t.Errorf("the next request sees stream.leak = %s", leak.Body)
	}
}
