package e2e

import (
	"net/http"
	"testing"
)

// A computed column works on rows a function returns, also when the
// computed-column function is overloaded for several tables: the rows are
// passed as the returned table's type, not as an anonymous record.
func TestComputedColumnOnAFunctionsRows(t *testing.T) {
	sql(t, `create table api.cc_people(id int primary key, first text, last text);
	        create table api.cc_pets(id int primary key, first text);
	        insert into api.cc_people values (1, 'Ada', 'Lovelace');
	        create function api.label(api.cc_people) returns text language sql stable as $$ select $1.first || ' ' || $1.last $$;
	        create function api.label(api.cc_pets) returns text language sql stable as $$ select 'pet ' || $1.first $$;
	        create function api.cc_everyone() returns setof api.cc_people language sql stable as 'select * from api.cc_people';
	        grant select on api.cc_people, api.cc_pets to web_anon;
	        grant execute on function api.label(api.cc_people), api.label(api.cc_pets), api.cc_everyone() to web_anon;`)
	t.Cleanup(func() {
		sql(t, "drop function api.cc_everyone(); drop function api.label(api.cc_people); drop function api.label(api.cc_pets); drop table api.cc_people, api.cc_pets")
	})
	s := startServer(t)
	for _, path := range []string{"/cc_people?select=id,label", "/rpc/cc_everyone?select=id,label"} {
		t.Run("select=id,label on "+path, func(t *testing.T) {
			res := s.do(t, http.MethodGet, path, "")
			if res.Status != 200 || string(res.Body) != `[{"id":1,"label":"Ada Lovelace"}]` {
				t.Fatalf("got %d %s", res.Status, res.Body)
			}
		})
	}
}
