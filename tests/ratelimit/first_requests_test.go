package ratelimit

import (
	"net/http"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// TestTheFirstRequestsCountUnderTheRolesQuota: the very first requests
// after start, sent before the schema cache has loaded, are counted
// under the role's quota from the database (pgrst.rate_limit.<name>),
// not under the limit's own rate, which the cache not yet being there
// would otherwise give them.
func TestTheFirstRequestsCountUnderTheRolesQuota(t *testing.T) {
	if err := execSQL(`alter role rl_premium set pgrst.rate_limit.first_requests = '1/d burst 2'`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = execSQL(`alter role rl_premium reset pgrst.rate_limit.first_requests`) })
	s := pgresttest.Start(t, dirs(limit("first_requests", "key role", "rate 1000/s", "burst 1000")))
	premium := pgresttest.Bearer(pgresttest.Token(t, jwtSecret, jwt.MapClaims{"role": "rl_premium"}))
	for i, want := range []int{http.StatusOK, http.StatusOK, http.StatusTooManyRequests} {
		res := s.Get(t, "/items", premium...)
		if res.Status != want {
			t.Fatalf("request %d: status %d, want %d (RateLimit-Policy %q): %s", i+1, res.Status, want,
				res.Header.Get("RateLimit-Policy"), res.Body)
		}
		if got := res.Header.Get("RateLimit-Policy"); got != `"first_requests";q=1;w=86400` {
			t.Errorf("request %d: RateLimit-Policy %q, want the role's quota", i+1, got)
		}
	}
}
