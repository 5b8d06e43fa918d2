package e2e

import (
	"net/http"
	"testing"
)

// A role allowed to insert but not to read can write when it asks for no
// representation, as in PostgREST: the statement reads no column back.
func TestWritesNeedNoSelectPrivilegeForMinimalReturn(t *testing.T) {
	sql(t, `create table api.wp_inbox(id int generated always as identity primary key, msg text not null);
	        grant insert on api.wp_inbox to web_anon;`)
	t.Cleanup(func() { sql(t, "drop table api.wp_inbox") })
	s := startServer(t)
	t.Run("an insert with return=minimal succeeds without SELECT", func(t *testing.T) {
		res := s.do(t, http.MethodPost, "/wp_inbox", `{"msg":"hello"}`)
		if res.Status != http.StatusCreated || len(res.Body) != 0 {
			t.Fatalf("got %d %s", res.Status, res.Body)
		}
	})
	t.Run("a bulk insert is counted without SELECT", func(t *testing.T) {
		res := s.do(t, http.MethodPost, "/wp_inbox", `[{"msg":"a"},{"msg":"b"}]`, "Prefer", "count=exact")
		if res.Status != http.StatusCreated || res.Header.Get("Content-Range") != "*/2" {
			t.Fatalf("got %d, Content-Range %q: %s", res.Status, res.Header.Get("Content-Range"), res.Body)
		}
	})
	t.Run("return=representation still needs SELECT", func(t *testing.T) {
		s.do(t, http.MethodPost, "/wp_inbox", `{"msg":"x"}`, "Prefer", "return=representation").
			expectError(t, http.StatusUnauthorized, "42501")
	})
	t.Run("the rows are there", func(t *testing.T) {
		if n := errCount(t, "select count(*) from api.wp_inbox"); n != 3 {
			t.Fatalf("%d rows, want 3", n)
		}
	})
}
