package e2e

import (
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

func TestHarnessServesARequest(t *testing.T) {
	sql(t, `create table api.smoke(id int primary key); insert into api.smoke values (1), (2);
	        grant select on api.smoke to web_anon, webuser;`)
	t.Cleanup(func() { sql(t, "drop table api.smoke") })
	s := startServer(t)
	res := s.get(t, "/smoke")
	if res.Status != 200 || string(res.Body) != `[{"id":1}, `+"\n"+` {"id":2}]` {
		t.Fatalf("got %d %q", res.Status, res.Body)
	}
	res = s.get(t, "/smoke", bearer(token(t, jwt.MapClaims{"role": "webuser"}))...)
	if res.Status != 200 {
		t.Fatalf("authenticated read: %d %s", res.Status, res.Body)
	}
}
