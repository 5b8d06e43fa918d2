package e2e

import (
	"net/http"
	"testing"
)

// Paths that had no test of their own: body shapes PATCH and PUT refuse,
// and the headers a read carries.
func TestWriteBodyShapesAndReadHeaders(t *testing.T) {
	sql(t, `create table api.rp_items(id int primary key, name text);
	        insert into api.rp_items values (1, 'a'), (2, 'b'), (3, 'c');
	        grant select, insert, update, delete on api.rp_items to web_anon;`)
	t.Cleanup(func() { sql(t, "drop table api.rp_items") })
	s := startServer(t)
	unchanged := func(t *testing.T) {
		t.Helper()
		if n := errCount(t, "select count(*) from api.rp_items where (id, name) in ((1,'a'),(2,'b'),(3,'c'))"); n != 3 {
			t.Fatalf("the table changed: %d of 3 rows as they were", n)
		}
	}
	t.Run("a PATCH body that is an array sets the columns of its first row, as PostgREST", func(t *testing.T) {
		s.do(t, http.MethodPatch, "/rp_items?id=eq.3", `[{"name":"x"},{"name":"y"}]`).ExpectStatus(t, http.StatusNoContent)
		if n := errCount(t, "select count(*) from api.rp_items where id = 3 and name = 'x'"); n != 1 {
			t.Fatalf("row 3 was not set from the first row")
		}
		sql(t, "update api.rp_items set name = 'c' where id = 3")
	})
	t.Run("a PUT body of two rows with the URL's key is 400 PGRST115 and changes nothing", func(t *testing.T) {
		s.do(t, http.MethodPut, "/rp_items?id=eq.1", `[{"id":1,"name":"x"},{"id":1,"name":"y"}]`).
			expectError(t, http.StatusBadRequest, "PGRST115")
		unchanged(t)
	})
	t.Run("a read names its canonical address in Content-Location, parameters sorted", func(t *testing.T) {
		res := s.get(t, "/rp_items?select=id&order=id&id=gt.1")
		if got := res.Header.Get("Content-Location"); res.Status != 200 || got != "/rp_items?id=gt.1&order=id&select=id" {
			t.Fatalf("got %d Content-Location %q", res.Status, got)
		}
	})
	t.Run("a counted read reports the count preference applied", func(t *testing.T) {
		res := s.get(t, "/rp_items", "Prefer", "count=exact")
		if got := res.Header.Get("Preference-Applied"); got != "count=exact" || res.Header.Get("Content-Range") != "0-2/3" {
			t.Fatalf("Preference-Applied %q, Content-Range %q", got, res.Header.Get("Content-Range"))
		}
	})
	t.Run("an offset past the counted rows is 416 with the total in Content-Range", func(t *testing.T) {
		res := s.get(t, "/rp_items?offset=5", "Prefer", "count=exact")
		res.expectError(t, http.StatusRequestedRangeNotSatisfiable, "PGRST103")
		if got := res.Header.Get("Content-Range"); got != "*/3" {
			t.Fatalf("Content-Range %q", got)
		}
	})
}
