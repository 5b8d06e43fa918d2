package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The authenticator holds every role it may switch into and must do nothing
// in its own name. set_config('role', 'none', true) resets the role to the
// session user, the authenticator, and so does the authenticator's own
// name: a token naming either is refused before any database work, with
// what PostgreSQL answers for a role the authenticator may not switch into.

// authLetAuthenticatorCallWhoami gives the authenticator what a request
// running as it would need to answer, so a request that ran as the
// authenticator would be seen to succeed rather than fail on privileges.
func authLetAuthenticatorCallWhoami(t *testing.T) {
	t.Helper()
	sql(t, `grant usage on schema api to authenticator`)
	t.Cleanup(func() { sql(t, `revoke usage on schema api from authenticator`) })
}

func TestAuthTokenRoleThatWouldRunAsTheAuthenticatorIsRefused(t *testing.T) {
	authLetAuthenticatorCallWhoami(t)
	s := startServer(t)
	for _, role := range []string{"none", "authenticator"} {
		tok := token(t, jwt.MapClaims{"role": role})
		for _, attempt := range []string{"first", "cached"} {
			t.Run("a token with role "+role+" is refused with 403 and 42501 ("+attempt+" use)", func(t *testing.T) {
				res := s.get(t, "/rpc/auth_whoami", bearer(tok)...)
				e := res.expectError(t, 403, "42501")
				authExpectMessage(t, e, `permission denied to set role "`+role+`"`)
				authNoChallenge(t, res)
				if strings.Contains(string(res.Body), `"authenticator"`) && role != "authenticator" {
					t.Errorf("the body names the authenticator: %s", res.Body)
				}
			})
		}
		t.Run("a token with role "+role+" cannot write either", func(t *testing.T) {
			res := s.do(t, "POST", "/rpc/auth_whoami", "{}", append(bearer(tok), "Content-Type", "application/json")...)
			res.expectError(t, 403, "42501")
		})
	}

	// set_config compares "none" exactly and looks other names up as they
	// are: these are ordinary (missing) roles, refused by PostgreSQL.
	for _, role := range []string{"NONE", "None", "nOnE", "Authenticator", "authenticator "} {
		t.Run("a token with role "+strings.TrimSpace(role)+" names a role that does not exist", func(t *testing.T) {
			res := s.get(t, "/rpc/auth_whoami", bearer(token(t, jwt.MapClaims{"role": role}))...)
			e := res.expectError(t, 401, "22023")
			authExpectMessage(t, e, `role "`+role+`" does not exist`)
		})
	}

	t.Run("granted roles and the anonymous role still work", func(t *testing.T) {
		if got := authWho(t, s); got != "web_anon" {
			t.Errorf("anonymous current_user %q, want web_anon", got)
		}
		if got := authWho(t, s, bearer(token(t, jwt.MapClaims{"role": "webuser"}))...); got != "webuser" {
			t.Errorf("current_user %q, want webuser", got)
		}
	})
}

// PostgreSQL cuts a role name to 63 bytes before looking it up, so a longer
// name that starts with a 63-byte authenticator's name is that
// authenticator.
func TestAuthTokenRoleCutToTheAuthenticatorsNameIsRefused(t *testing.T) {
	long := strings.Repeat("a", 63)
	sql(t, `create role `+long+` login noinherit password 'long-authenticator-password';
		grant web_anon, webuser to `+long+`;
		grant usage on schema api to `+long)
	t.Cleanup(func() {
		sql(t, `revoke usage on schema api from `+long+`; revoke web_anon, webuser from `+long+`; drop role `+long)
	})
	s := startServer(t, "db_uri "+pgtest.DSNFor(authDSN, long, "long-authenticator-password"))

	if got := authWho(t, s, bearer(token(t, jwt.MapClaims{"role": "webuser"}))...); got != "webuser" {
		t.Fatalf("current_user %q, want webuser: the server does not run", got)
	}
	for _, role := range []string{long, long + "-and-more", "none"} {
		t.Run("a token with role "+role+" is refused", func(t *testing.T) {
			res := s.get(t, "/rpc/auth_whoami", bearer(token(t, jwt.MapClaims{"role": role}))...)
			e := res.expectError(t, 403, "42501")
			authExpectMessage(t, e, `permission denied to set role "`+role+`"`)
		})
	}
}

// db_anon_role none resets to the authenticator for every anonymous
// request without the administrator naming it: the config does not load.
func TestAuthAnonymousRoleNoneIsRefusedAtLoad(t *testing.T) {
	err := authLoadError(t, "db_anon_role none")
	if want := `db_anon_role: "none" would run anonymous requests as the authenticator`; !strings.Contains(err.Error(), want) {
		t.Errorf("load error %q does not contain %q", err, want)
	}
}

// PostgREST starts with db-anon-role naming the authenticator, as
// postgrest-js's own test setup runs it (postgres for both): pgrest does
// too, with a warning in the log, while a token naming the authenticator
// (or none) is still refused.
func TestAuthAnonymousRoleMayBeTheAuthenticator(t *testing.T) {
	authLetAuthenticatorCallWhoami(t)
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	s := startServerLogging(t, logFile, "db_anon_role authenticator")

	t.Run("an anonymous request runs as the authenticator", func(t *testing.T) {
		if got := authWho(t, s); got != "authenticator" {
			t.Errorf("anonymous current_user %q, want authenticator", got)
		}
	})
	t.Run("a token without a role claim runs as db_anon_role", func(t *testing.T) {
		if got := authWho(t, s, bearer(token(t, jwt.MapClaims{"sub": "someone"}))...); got != "authenticator" {
			t.Errorf("current_user %q, want authenticator", got)
		}
	})
	for _, role := range []string{"authenticator", "none"} {
		t.Run("a token with role "+role+" is still refused with 403 and 42501", func(t *testing.T) {
			res := s.get(t, "/rpc/auth_whoami", bearer(token(t, jwt.MapClaims{"role": role}))...)
			e := res.expectError(t, 403, "42501")
			authExpectMessage(t, e, `permission denied to set role "`+role+`"`)
		})
	}
	t.Run("a granted role still works", func(t *testing.T) {
		if got := authWho(t, s, bearer(token(t, jwt.MapClaims{"role": "webuser"}))...); got != "webuser" {
			t.Errorf("current_user %q, want webuser", got)
		}
	})
	t.Run("the log warns that anonymous requests run as the authenticator", func(t *testing.T) {
		log, err := os.ReadFile(logFile)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(log), "db_anon_role is the authenticator: anonymous requests run as the authenticator itself") {
			t.Errorf("no warning in the log:\n%s", log)
		}
	})
}
