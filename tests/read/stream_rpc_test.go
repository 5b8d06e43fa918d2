package read

import (
	"io"
	"net/http"
	"testing"

	"github.com/pgrest/caddy-pgrest/executor"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// streamRPCSQL adds to the stream fixture functions returning api.big's
// rows: a plpgsql one (its call is stored and read twice), an inlinable
// SQL one returning a table type, a volatile one that counts its calls
// and sets the response's header and status and a session-level setting,
// and an inlinable one whose row 2500 fails only when its rows are read.
const streamRPCSQL = `
create function api.big_rows() returns setof api.big language plpgsql stable as $$
begin
  return query select * from api.big order by id;
end
$$;
create function api.big_table(n int) returns table (id int, name text, note text) language sql stable as $$
  select b.id, b.name, b.note from api.big b where b.id <= n order by b.id
$$;
create table api.rpc_calls (n int);
grant insert on api.rpc_calls to web_anon;
create function api.big_marked() returns setof api.big language plpgsql volatile as $$
begin
  insert into api.rpc_calls values (1);
  perform pg_catalog.set_config('response.headers', '[{"X-Marked": "rpc"}]', true);
  perform pg_catalog.set_config('response.status', '202', true);
  perform pg_catalog.set_config('stream.leak', 'leaked by rpc', false);
  return query select * from api.big order by id;
end
$$;
create function api.big_late() returns table (id int, name text) language sql stable as $$
  select b.id, case when b.id = 2500 then (b.id / (b.id - 2500))::text else b.name end from api.big b
$$;
`

// TestStreamedCallMatchesWholeCall asks each call twice, built whole and
// streamed, as TestStreamedReadMatchesWholeRead does reads: the status,
// the body and the headers must be the same.
func TestStreamedCallMatchesWholeCall(t *testing.T) {
	s := startStreamServer(t)
	cases := []struct {
		name, method, path, body string
		headers                  []string
	}{
		{"json", "GET", "/rpc/big_rows", "", nil},
		{"json, POST", "POST", "/rpc/big_rows", "{}", nil},
		{"selected columns with quotes and nulls", "GET", "/rpc/big_rows?select=id,note&id=lt.50", "", nil},
		{"stripped nulls", "GET", "/rpc/big_rows?order=id.desc", "", []string{"Accept", "application/vnd.pgrst.array+json;nulls=stripped"}},
		{"csv", "GET", "/rpc/big_rows", "", []string{"Accept", "text/csv"}},
		{"filters, order and limit", "GET", "/rpc/big_rows?id=gt.100&note=not.is.null&order=name.desc&limit=700&offset=3", "", nil},
		{"exact count and a range", "GET", "/rpc/big_rows", "", []string{"Prefer", "count=exact", "Range", "10-1009"}},
		{"exact count, POST", "POST", "/rpc/big_rows?limit=2000", "{}", []string{"Prefer", "count=exact"}},
		{"table type", "GET", "/rpc/big_table?n=2000&order=id", "", nil},
		{"table type, csv, filtered", "GET", "/rpc/big_table?n=2500&id=gt.20", "", []string{"Accept", "text/csv"}},
		{"empty", "GET", "/rpc/big_rows?id=lt.0", "", nil},
		{"empty csv", "GET", "/rpc/big_table?n=0", "", []string{"Accept", "text/csv"}},
		{"singular, one row", "GET", "/rpc/big_rows?id=eq.3", "", []string{"Accept", "application/vnd.pgrst.object+json"}},
		{"range past the end", "GET", "/rpc/big_rows?offset=5000", "", []string{"Prefer", "count=exact"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			withStreamBound(t, 1<<40)
			whole := s.Do(t, c.method, c.path, c.body, c.headers...)
			executor.SetStreamBound(1)
			streamed := s.Do(t, c.method, c.path, c.body, c.headers...)
			sameAnswer(t, streamed, whole, "Content-Type", "Content-Range", "Preference-Applied", "Vary")
		})
	}
}

// TestStreamedCallStreams: a large call's body goes out without a
// Content-Length once past the bound. It failed before calls streamed.
func TestStreamedCallStreams(t *testing.T) {
	s := startStreamServer(t)
	withStreamBound(t, 1)
	for _, path := range []string{"/rpc/big_rows", "/rpc/big_table?n=3000"} {
		res := s.Get(t, path, "Accept", "text/csv")
		if res.Status != http.StatusOK || res.Header.Get("Content-Length") != "" {
			t.Errorf("%s: status %d, Content-Length %q: want a streamed 200", path, res.Status, res.Header.Get("Content-Length"))
		}
	}
}

// TestStreamedCallSettingsAndOneRun: what a volatile function sets while it
// runs (response.headers, response.status) is in the streamed response's
// header, it runs once on POST, and the connection it leaves is reset and
// reused by the next request, which sees nothing of it.
func TestStreamedCallSettingsAndOneRun(t *testing.T) {
	s := startStreamServer(t)
	withStreamBound(t, 1)
	pid := s.Get(t, "/rpc/backend_pid")
	before := pgresttest.SQLInt(t, streamDB.superDSN(t), "select count(*) from api.rpc_calls")
	res := s.Do(t, "POST", "/rpc/big_marked?select=id&order=id&offset=100", "{}", "Prefer", "count=exact")
	if res.Status != http.StatusAccepted {
		t.Fatalf("status %d, want 202 from response.status; body %.200s", res.Status, res.Body)
	}
	want := map[string]string{
		"Content-Range":  "100-2999/3000",
		"X-Marked":       "rpc",
		"Content-Length": "",
	}
	for h, v := range want {
		if got := res.Header.Get(h); got != v {
			t.Errorf("%s: %q, want %q", h, got, v)
		}
	}
	if n := len(rows(t, &pgresttest.Response{Status: http.StatusOK, Body: res.Body})); n != 2900 {
		t.Errorf("%d rows, want 2900", n)
	}
	if calls := pgresttest.SQLInt(t, streamDB.superDSN(t), "select count(*) from api.rpc_calls") - before; calls != 1 {
		t.Errorf("the function ran %d times, want once", calls)
	}
	checkNoLeak(t, s)
	if again := s.Get(t, "/rpc/backend_pid"); string(again.Body) != string(pid.Body) {
		t.Errorf("backend %s after the streamed call, %s before: the connection was not reused", again.Body, pid.Body)
	}
}

// TestStreamedCallAbortsOnALateError: a function whose row 2500 fails
// only as its rows are read fails after the header went out: the client
// sees a broken response, not a short body with a 200, and the pool
// serves on.
func TestStreamedCallAbortsOnALateError(t *testing.T) {
	s := startStreamServer(t)
	withStreamBound(t, 1)
	res, body := startRead(t, s, "/rpc/big_late")
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, body); err == nil {
		t.Fatal("the body read to its end: a truncated body passed for a whole one")
	}
	checkServesOn(t, s)
	checkNoLeak(t, s)
}
