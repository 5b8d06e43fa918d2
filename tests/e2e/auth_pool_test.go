package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Tokens are checked before the request takes a pool connection, so a bad
// token costs no database work and is refused even when the database is
// busy or down.

func TestAuthHappensBeforeAPoolConnectionIsTaken(t *testing.T) {
	t.Run("with the only pool connection held by a slow request", func(t *testing.T) {
		s := startServer(t, "db_pool 1", "db_pool_acquisition_timeout 1")
		// Load the schema cache and open the one connection.
		if got := authWho(t, s); got != "web_anon" {
			t.Fatalf("ran as %q", got)
		}

		slow := make(chan int, 1)
		go func() {
			res, err := http.Get(s.URL + "/rpc/auth_sleep?seconds=2.5")
			if err != nil {
				slow <- 0
				return
			}
			res.Body.Close()
			slow <- res.StatusCode
		}()
		waitForCall(t, "auth_sleep")

		badSignature := bearer(authSign(t, jwt.SigningMethodHS256, []byte("another-secret-that-is-long-enough-0123456789"), "",
			jwt.MapClaims{"role": "auth_alice"}))
		expired := bearer(token(t, jwt.MapClaims{"role": "auth_alice", "exp": authNow(-time.Hour)}))
		for _, tc := range []struct {
			name, code, message string
			headers             []string
		}{
			{"a token with a bad signature is refused at once", "PGRST301", "No suitable key or wrong key type", badSignature},
			{"an expired token is refused at once", "PGRST303", "JWT expired", expired},
		} {
			t.Run(tc.name, func(t *testing.T) {
				start := time.Now()
				res := s.get(t, "/rpc/auth_whoami", tc.headers...)
				took := time.Since(start)
				authExpectTokenError(t, res, 401, tc.code, tc.message)
				if took >= time.Second {
					t.Errorf("answered after %v, want well under the 2.5 s the pool is held", took)
				}
			})
		}

		t.Run("while a valid token waits for the pool and times out", func(t *testing.T) {
			start := time.Now()
			res := s.get(t, "/rpc/auth_whoami", bearer(token(t, jwt.MapClaims{"role": "auth_alice"}))...)
			res.expectError(t, 504, "PGRST003")
			if took := time.Since(start); took < 900*time.Millisecond {
				t.Errorf("timed out after %v, want db_pool_acquisition_timeout (1 s)", took)
			}
		})

		if status := <-slow; status != 200 {
			t.Errorf("the slow request: status %d, want 200", status)
		}
	})

	t.Run("with the database unreachable", func(t *testing.T) {
		s := startServer(t, "db_uri "+authClosedPortURI(t))
		t.Run("a token with a bad signature is still 401 PGRST301, not 503", func(t *testing.T) {
			res := s.get(t, "/rpc/auth_whoami", bearer(authSign(t, jwt.SigningMethodHS256,
				[]byte("another-secret-that-is-long-enough-0123456789"), "", jwt.MapClaims{"role": "auth_alice"}))...)
			authExpectTokenError(t, res, 401, "PGRST301", "No suitable key or wrong key type")
		})
		t.Run("an expired token is still 401 PGRST303", func(t *testing.T) {
			res := s.get(t, "/rpc/auth_whoami", bearer(token(t, jwt.MapClaims{"role": "auth_alice", "exp": authNow(-time.Hour)}))...)
			authExpectTokenError(t, res, 401, "PGRST303", "JWT expired")
		})
		t.Run("a valid token gets 503: the database is needed", func(t *testing.T) {
			res := s.get(t, "/rpc/auth_whoami", bearer(token(t, jwt.MapClaims{"role": "auth_alice"}))...)
			if res.Status != 503 {
				t.Fatalf("status %d, want 503; body %s", res.Status, res.Body)
			}
			if code := res.Error(t)["code"]; code != "PGRST000" && code != "PGRST002" {
				t.Errorf("code %v, want PGRST000 or PGRST002", code)
			}
		})
	})
}
