package e2e

import (
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// Authentication items 5, 6 and 9, and what the contract says of roles:
// row-level security sees the switched role, roles may be hierarchical,
// web users may share a role, and the internal schema stays internal.

func TestAuthItem5ValidTokenWithRoleClaimSwitchesIntoThatRole(t *testing.T) {
	s := startServer(t)
	for _, role := range []string{"auth_alice", "auth_bob", "webuser"} {
		t.Run("a token with role "+role+" runs as "+role, func(t *testing.T) {
			if got := authWho(t, s, bearer(token(t, jwt.MapClaims{"role": role}))...); got != role {
				t.Errorf("current_user %q, want %s", got, role)
			}
		})
	}

	t.Run("a role that does not exist is refused with 401 and the database's 22023", func(t *testing.T) {
		res := s.get(t, "/rpc/auth_whoami", bearer(token(t, jwt.MapClaims{"role": "auth_nobody"}))...)
		e := res.expectError(t, 401, "22023")
		authExpectMessage(t, e, `role "auth_nobody" does not exist`)
		authExpectBearerChallenge(t, res)
	})

	t.Run("a role the authenticator was not granted is refused with 403 and 42501", func(t *testing.T) {
		res := s.get(t, "/rpc/auth_whoami", bearer(token(t, jwt.MapClaims{"role": "auth_stranger"}))...)
		e := res.expectError(t, 403, "42501")
		authExpectMessage(t, e, `permission denied to set role "auth_stranger"`)
		authNoChallenge(t, res)
	})

	t.Run("a role granted to the authenticator later can be switched into at once", func(t *testing.T) {
		sql(t, `create role auth_late nologin; grant usage on schema api to auth_late`)
		t.Cleanup(func() { sql(t, `revoke usage on schema api from auth_late; drop role auth_late`) })
		tok := token(t, jwt.MapClaims{"role": "auth_late"})
		s.get(t, "/rpc/auth_whoami", bearer(tok)...).expectError(t, 403, "42501")
		sql(t, `grant auth_late to authenticator`)
		t.Cleanup(func() { sql(t, `revoke auth_late from authenticator`) })
		if got := authWho(t, s, bearer(tok)...); got != "auth_late" {
			t.Errorf("current_user %q, want auth_late", got)
		}
	})
}

func TestAuthItem6RequestsWithoutRoleRunAsTheAnonymousRole(t *testing.T) {
	s := startServer(t)
	for _, tc := range []struct {
		name    string
		headers []string
	}{
		{"a request without a token", nil},
		{"a token without a role claim", bearer(token(t, jwt.MapClaims{"email": "nobody@example.com"}))},
		{"a token whose role claim is null", bearer(token(t, jwt.MapClaims{"role": nil}))},
		{"a token with an empty claims object", bearer(token(t, jwt.MapClaims{}))},
	} {
		t.Run(tc.name+" runs as db_anon_role", func(t *testing.T) {
			if got := authWho(t, s, tc.headers...); got != "web_anon" {
				t.Errorf("current_user %q, want web_anon", got)
			}
		})
	}

	t.Run("a token without a role claim still hands its claims to SQL, with the anonymous role", func(t *testing.T) {
		claims := authSettingJSON(t, s, "request.jwt.claims", bearer(token(t, jwt.MapClaims{"email": "nobody@example.com"}))...)
		if claims["email"] != "nobody@example.com" || claims["role"] != "web_anon" {
			t.Errorf("request.jwt.claims %v, want email nobody@example.com and role web_anon", claims)
		}
	})

	t.Run("without db_anon_role", func(t *testing.T) {
		s := startServer(t, "-db_anon_role")
		for _, tc := range []struct {
			name    string
			headers []string
		}{
			{"a request without a token", nil},
			{"a token without a role claim", bearer(token(t, jwt.MapClaims{"email": "nobody@example.com"}))},
		} {
			t.Run(tc.name+" is refused with 401 PGRST302", func(t *testing.T) {
				res := s.get(t, "/rpc/auth_whoami", tc.headers...)
				e := res.expectError(t, 401, "PGRST302")
				authExpectMessage(t, e, "Anonymous access is disabled")
				authExpectBearerChallenge(t, res)
			})
		}
		t.Run("a token with a role claim is served", func(t *testing.T) {
			if got := authWho(t, s, bearer(token(t, jwt.MapClaims{"role": "auth_alice"}))...); got != "auth_alice" {
				t.Errorf("current_user %q, want auth_alice", got)
			}
		})
	})
}

func TestAuthItem9PrivilegeFailuresAre403WhenAuthenticatedAnd401Otherwise(t *testing.T) {
	s := startServer(t)

	t.Run("an anonymous read of a table it may not read is 401 with a Bearer challenge", func(t *testing.T) {
		res := s.get(t, "/auth_staff_docs")
		e := res.expectError(t, 401, "42501")
		authExpectMessage(t, e, "permission denied for table auth_staff_docs")
		authExpectBearerChallenge(t, res)
	})

	t.Run("the same read with a token for a role without the privilege is 403", func(t *testing.T) {
		res := s.get(t, "/auth_staff_docs", bearer(token(t, jwt.MapClaims{"role": "auth_alice"}))...)
		e := res.expectError(t, 403, "42501")
		authExpectMessage(t, e, "permission denied for table auth_staff_docs")
		authNoChallenge(t, res)
	})

	t.Run("a function the role may not execute is 403 for an authenticated role", func(t *testing.T) {
		res := s.do(t, "POST", "/rpc/login", `{"email":"alice@example.com","pass":"alice-password"}`,
			bearer(token(t, jwt.MapClaims{"role": "webuser"}))...)
		e := res.expectError(t, 403, "42501")
		authExpectMessage(t, e, "permission denied for function login")
	})

	t.Run("insufficient_privilege raised by a function follows the same rule", func(t *testing.T) {
		res := s.get(t, "/rpc/auth_deny")
		res.expectError(t, 401, "42501")
		authExpectBearerChallenge(t, res)
		res = s.get(t, "/rpc/auth_deny", bearer(token(t, jwt.MapClaims{"role": "webuser"}))...)
		authExpectMessage(t, res.expectError(t, 403, "42501"), "auth_deny: no")
		authNoChallenge(t, res)
	})
}

func TestAuthRowLevelSecuritySeesTheSwitchedRoleAsCurrentUser(t *testing.T) {
	s := startServer(t)
	for _, tc := range []struct {
		name    string
		headers []string
		want    []int
	}{
		{"auth_alice sees her two notes", bearer(token(t, jwt.MapClaims{"role": "auth_alice"})), []int{1, 2}},
		{"auth_bob sees his one note", bearer(token(t, jwt.MapClaims{"role": "auth_bob"})), []int{3}},
		{"the anonymous role owns no note and sees none", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			authExpectIDs(t, s.get(t, "/auth_notes", tc.headers...), tc.want...)
		})
	}
	t.Run("an email claim does not change what a role-based policy shows", func(t *testing.T) {
		res := s.get(t, "/auth_notes", bearer(token(t, jwt.MapClaims{"role": "auth_bob", "email": "alice@example.com"}))...)
		authExpectIDs(t, res, 3)
	})
}

func TestAuthHierarchicalRolesGrantPrivilegesThroughAGroupRole(t *testing.T) {
	s := startServer(t)
	carol := bearer(token(t, jwt.MapClaims{"role": "auth_carol"}))

	t.Run("an individual role reads what its group role may read", func(t *testing.T) {
		authExpectIDs(t, s.get(t, "/auth_staff_docs", carol...), 1, 2)
	})
	t.Run("current_user is the individual role, not the group", func(t *testing.T) {
		if got := authWho(t, s, carol...); got != "auth_carol" {
			t.Errorf("current_user %q, want auth_carol", got)
		}
	})
	t.Run("a token naming the group role is served too: membership reaches it through the individual role", func(t *testing.T) {
		if got := authWho(t, s, bearer(token(t, jwt.MapClaims{"role": "auth_staff"}))...); got != "auth_staff" {
			t.Errorf("current_user %q, want auth_staff", got)
		}
	})
	t.Run("a role outside the group is refused", func(t *testing.T) {
		s.get(t, "/auth_staff_docs", bearer(token(t, jwt.MapClaims{"role": "auth_bob"}))...).expectError(t, 403, "42501")
	})
}

func TestAuthWebUsersSharingOneRoleAreToldApartByAClaim(t *testing.T) {
	s := startServer(t)
	for _, tc := range []struct {
		name   string
		claims jwt.MapClaims
		want   []int
	}{
		{"alice@example.com sees her to-dos", jwt.MapClaims{"role": "webuser", "email": "alice@example.com"}, []int{1, 2}},
		{"bob@example.com sees his to-do", jwt.MapClaims{"role": "webuser", "email": "bob@example.com"}, []int{3}},
		{"a user with no to-do sees none", jwt.MapClaims{"role": "webuser", "email": "carol@example.com"}, nil},
		{"a token without the email claim sees none", jwt.MapClaims{"role": "webuser"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			authExpectIDs(t, s.get(t, "/auth_todos", bearer(token(t, tc.claims))...), tc.want...)
		})
	}
	t.Run("both users run as the same role", func(t *testing.T) {
		for _, email := range []string{"alice@example.com", "bob@example.com"} {
			if got := authWho(t, s, bearer(token(t, jwt.MapClaims{"role": "webuser", "email": email}))...); got != "webuser" {
				t.Errorf("%s ran as %q, want webuser", email, got)
			}
		}
	})
}

func TestAuthInternalSchemaIsNotReachable(t *testing.T) {
	s := startServer(t)
	t.Run("a table of the unexposed schema is not found, though the role may read it in SQL", func(t *testing.T) {
		e := s.get(t, "/auth_secrets").expectError(t, 404, "PGRST205")
		authExpectMessage(t, e, "Could not find the table 'api.auth_secrets' in the schema cache")
	})
	t.Run("the users table of the login pattern is not found", func(t *testing.T) {
		s.get(t, "/users").expectError(t, 404, "PGRST205")
	})
	for _, schema := range []string{"private", "basic_auth"} {
		t.Run("asking for schema "+schema+" with Accept-Profile is 406 PGRST106", func(t *testing.T) {
			e := s.get(t, "/auth_secrets", "Accept-Profile", schema).expectError(t, 406, "PGRST106")
			authExpectMessage(t, e, "Invalid schema: "+schema)
			if e["hint"] != "Only the following schemas are exposed: api" {
				t.Errorf("hint %q", e["hint"])
			}
		})
	}
	t.Run("a function of the unexposed schema is not found", func(t *testing.T) {
		s.get(t, "/rpc/auth_check_request").expectError(t, 404, "PGRST202")
	})
}
