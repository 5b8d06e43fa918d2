package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Verified tokens are cached (jwt_cache_max_entries, 1000 by default). A
// cached token must behave as an uncached one: same identity, same claims,
// and exp checked again on every use. Each case runs with the cache and
// without it.

func TestAuthVerifiedTokenCacheKeepsTheContract(t *testing.T) {
	for _, cfg := range []struct {
		name  string
		lines []string
	}{
		{"with the default cache", nil},
		{"with jwt_cache_max_entries 1", []string{"jwt_cache_max_entries 1"}},
		{"with the cache disabled", []string{"jwt_cache_max_entries 0"}},
	} {
		t.Run(cfg.name, func(t *testing.T) {
			s := startServer(t, cfg.lines...)

			t.Run("a valid token works on every use", func(t *testing.T) {
				tok := bearer(token(t, jwt.MapClaims{"role": "auth_alice", "exp": authNow(time.Hour)}))
				for i := range 3 {
					if got := authWho(t, s, tok...); got != "auth_alice" {
						t.Errorf("use %d ran as %q, want auth_alice", i+1, got)
					}
				}
			})

			t.Run("tokens used in turn keep their own role and claims", func(t *testing.T) {
				for i := range 3 {
					for _, u := range []struct{ role, email string }{
						{"auth_alice", "alice@example.com"}, {"auth_bob", "bob@example.com"}, {"webuser", "carol@example.com"},
					} {
						tok := bearer(token(t, jwt.MapClaims{"role": u.role, "email": u.email}))
						claims := authSettingJSON(t, s, "request.jwt.claims", tok...)
						if claims["role"] != u.role || claims["email"] != u.email {
							t.Errorf("round %d: claims %v, want role %s and email %s", i+1, claims, u.role, u.email)
						}
					}
				}
			})

			t.Run("a token expired by 40 seconds is refused on every use", func(t *testing.T) {
				tok := bearer(token(t, jwt.MapClaims{"role": "auth_alice", "exp": authNow(-40 * time.Second)}))
				for i := range 2 {
					res := s.get(t, "/rpc/auth_whoami", tok...)
					if res.Status != 401 {
						t.Fatalf("use %d: status %d, want 401", i+1, res.Status)
					}
					authExpectTokenError(t, res, 401, "PGRST303", "JWT expired")
				}
			})

			t.Run("a token accepted once is refused once its exp (plus the 30 s skew) has passed", func(t *testing.T) {
				// exp 29 s ago is inside the skew for at most two more
				// seconds: the first use is accepted (and cached), the use
				// after that second has passed must be refused.
				tok, now := firstUseWithinTheSkew(t, s)
				time.Sleep(time.Until(time.Unix(now+2, int64(100*time.Millisecond))))
				res := s.get(t, "/rpc/auth_whoami", tok...)
				authExpectTokenError(t, res, 401, "PGRST303", "JWT expired")
			})

			t.Run("many distinct tokens do not push out or mix up identities", func(t *testing.T) {
				for i := range 20 {
					email := fmt.Sprintf("user%d@example.com", i)
					tok := bearer(token(t, jwt.MapClaims{"role": "webuser", "email": email}))
					if got := authGetJSON(t, s, "/rpc/auth_email", tok...); got != email {
						t.Errorf("email %v, want %s", got, email)
					}
				}
			})
		})
	}
}

// firstUseWithinTheSkew makes a token of auth_alice whose exp was 29 s
// before now (a whole second), uses it once and returns it with now. The
// token is within the 30 s skew for the rest of that second at least; a
// loaded machine may answer after it, and a refusal then is no fault, so
// the token is made again, a few times. A refusal within that second is.
func firstUseWithinTheSkew(t *testing.T, s *server) (tok []string, now int64) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		now = time.Now().Unix()
		tok = bearer(token(t, jwt.MapClaims{"role": "auth_alice", "exp": now - 29}))
		res := s.get(t, "/rpc/auth_whoami", tok...)
		if res.Status == http.StatusOK {
			if string(res.Body) != `"auth_alice"` {
				t.Fatalf("first use ran as %s, want auth_alice", res.Body)
			}
			return tok, now
		}
		if time.Now().Unix() == now || attempt == 5 {
			t.Fatalf("first use within the skew: %d %s, want 200", res.Status, res.Body)
		}
	}
}
