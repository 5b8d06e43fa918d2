package e2e

import (
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Tokens are checked before the request takes a pool connection, so a bad
// token costs no database work and is refused even when the database is
// busy or down.

func TestAuthHappensBeforeAPoolConnectionIsTaken(t *testing.T) {
	t.Run("with the only pool connection held by another request", func(t *testing.T) {
		s := startServer(t, "db_pool 1", "db_pool_acquisition_timeout 1")
		// Load the schema cache and open the one connection.
		if got := authWho(t, s); got != "web_anon" {
			t.Fatalf("ran as %q", got)
		}
		// The connection is held until release, after every request
		// below: a token checked after the wait for a connection would
		// be answered 504 PGRST003, not 401.
		release, held := holdPool(t, s, 401)

		badSignature := bearer(authSign(t, jwt.SigningMethodHS256, []byte("another-secret-that-is-long-enough-0123456789"), "",
			jwt.MapClaims{"role": "auth_alice"}))
		expired := bearer(token(t, jwt.MapClaims{"role": "auth_alice", "exp": authNow(-time.Hour)}))
		for _, tc := range []struct {
			name, code, message string
			headers             []string
		}{
			{"a token with a bad signature is refused without waiting for the pool", "PGRST301", "No suitable key or wrong key type", badSignature},
			{"an expired token is refused without waiting for the pool", "PGRST303", "JWT expired", expired},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := s.get(t, "/rpc/auth_whoami", tc.headers...)
				authExpectTokenError(t, res, 401, tc.code, tc.message)
			})
		}

		t.Run("while a valid token waits for the pool and times out", func(t *testing.T) {
			// PGRST003 is the end of db_pool_acquisition_timeout.
			res := s.get(t, "/rpc/auth_whoami", bearer(token(t, jwt.MapClaims{"role": "auth_alice"}))...)
			res.expectError(t, 504, "PGRST003")
		})

		release()
		if res := <-held; res != nil && res.Status != 200 {
			t.Errorf("the request holding the pool: %d %s, want 200", res.Status, res.Body)
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
