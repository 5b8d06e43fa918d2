package e2e

import (
	"net/http"
	"testing"
)

// A view that shows its table's primary key takes PUT, as in PostgREST,
// which gives the view the table's key.
func TestOptionsOfAViewWithItsTablesKey(t *testing.T) {
	sql(t, `create table api.ov_items(id int primary key, name text);
	        create view api.ov_cheap as select id, name from api.ov_items;
	        create view api.ov_names as select name from api.ov_items;
	        grant select, insert, update, delete on api.ov_items, api.ov_cheap, api.ov_names to web_anon;`)
	t.Cleanup(func() { sql(t, "drop view api.ov_cheap, api.ov_names; drop table api.ov_items") })
	s := startServer(t)
	for _, tt := range []struct{ name, path, want string }{
		{"a view showing the key takes every write", "/ov_cheap", "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE"},
		{"a view hiding the key takes no PUT", "/ov_names", "OPTIONS,GET,HEAD,POST,PATCH,DELETE"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := s.do(t, http.MethodOptions, tt.path, "")
			if got := res.Header.Get("Allow"); res.Status != 200 || got != tt.want {
				t.Fatalf("got %d Allow %q, want %q", res.Status, got, tt.want)
			}
		})
	}
}
