package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Authentication items 7 and 8, and the request.* settings SQL sees.

func TestAuthItem7ExpIsHonouredAndNothingElseIsEnforced(t *testing.T) {
	s := startServer(t)
	for _, tc := range []struct {
		name   string
		claims jwt.MapClaims
	}{
		{"a token expiring in an hour is accepted", jwt.MapClaims{"role": "auth_alice", "exp": authNow(time.Hour)}},
		{"a token that expired 10 seconds ago is accepted within PostgREST's 30-second clock skew",
			jwt.MapClaims{"role": "auth_alice", "exp": authNow(-10 * time.Second)}},
		{"a token without exp is accepted", jwt.MapClaims{"role": "auth_alice"}},
		{"iss, sub, jti and aud are not checked when jwt_aud is not set", jwt.MapClaims{"role": "auth_alice",
			"iss": "https://issuer.example.com", "sub": "user-1", "jti": "abc", "aud": "someone-else"}},
		{"an iat in the past is accepted", jwt.MapClaims{"role": "auth_alice", "iat": authNow(-24 * time.Hour)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := authWho(t, s, bearer(token(t, tc.claims))...); got != "auth_alice" {
				t.Errorf("ran as %q, want auth_alice", got)
			}
		})
	}
	for _, tc := range []struct {
		name    string
		claims  jwt.MapClaims
		message string
	}{
		{"a token that expired 40 seconds ago is refused", jwt.MapClaims{"role": "auth_alice", "exp": authNow(-40 * time.Second)}, "JWT expired"},
		{"a token not valid before an hour from now is refused", jwt.MapClaims{"role": "auth_alice", "nbf": authNow(time.Hour)}, "JWT not yet valid"},
		{"a token issued an hour from now is refused", jwt.MapClaims{"role": "auth_alice", "iat": authNow(time.Hour)}, "JWT issued at future"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.get(t, "/rpc/auth_whoami", bearer(token(t, tc.claims))...)
			authExpectTokenError(t, res, 401, "PGRST303", tc.message)
		})
	}

	t.Run("with db_pre_request", func(t *testing.T) {
		s := startServer(t, "db_pre_request private.auth_check_request")
		user := func(email string) []string {
			return bearer(token(t, jwt.MapClaims{"role": "webuser", "email": email, "exp": authNow(time.Hour)}))
		}
		t.Run("a user it does not block is served", func(t *testing.T) {
			authExpectIDs(t, s.get(t, "/auth_todos", user("alice@example.com")...), 1, 2)
		})
		t.Run("an anonymous request is served", func(t *testing.T) {
			authExpectIDs(t, s.get(t, "/auth_notes"))
		})
		t.Run("the blocked user's valid token is refused with 403 insufficient_privilege", func(t *testing.T) {
			res := s.get(t, "/auth_todos", user("blocked@example.com")...)
			authExpectMessage(t, res.expectError(t, 403, "42501"), "user blocked@example.com is blocked")
		})
		t.Run("the blocked user cannot call functions either", func(t *testing.T) {
			s.get(t, "/rpc/auth_whoami", user("blocked@example.com")...).expectError(t, 403, "42501")
		})
		t.Run("a revoked token is refused with the custom status PT401", func(t *testing.T) {
			res := s.get(t, "/auth_todos", user("revoked@example.com")...)
			e := res.expectError(t, 401, "PT401")
			authExpectMessage(t, e, "token revoked")
			if e["hint"] != "log in again" {
				t.Errorf("hint %v, want %q", e["hint"], "log in again")
			}
		})
		t.Run("it runs after the role switch and before the main statement", func(t *testing.T) {
			if got := authSetting(t, s, "auth.pre_request_role", user("alice@example.com")...); got != "webuser" {
				t.Errorf("the pre-request ran as %v, want webuser", got)
			}
			if got := authSetting(t, s, "auth.pre_request_role"); got != "web_anon" {
				t.Errorf("the pre-request ran as %v for an anonymous request, want web_anon", got)
			}
		})
		t.Run("it does not run for a token refused before the database", func(t *testing.T) {
			res := s.get(t, "/auth_todos", bearer(token(t, jwt.MapClaims{"role": "webuser", "email": "blocked@example.com",
				"exp": authNow(-time.Hour)}))...)
			authExpectTokenError(t, res, 401, "PGRST303", "JWT expired")
		})
	})
}

func TestAuthItem8ClaimsAreAvailableToSQL(t *testing.T) {
	var version int
	if err := authConnect(t).QueryRow(context.Background(), "select current_setting('server_version_num')::int").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version < 140000 {
		t.Skipf("PostgreSQL %d: request.jwt.claims is the form of 14 and later", version)
	}
	claims := jwt.MapClaims{
		"role":    "webuser",
		"email":   "alice@example.com",
		"user_id": json.Number("12345678901234567890"),
		"groups":  []string{"a", "b"},
		"exp":     authNow(time.Hour),
	}

	t.Run("on PostgreSQL 14 and later request.jwt.claims holds every claim as JSON", func(t *testing.T) {
		s := startServer(t)
		alice := bearer(token(t, claims))
		got := authSettingJSON(t, s, "request.jwt.claims", alice...)
		for _, k := range []string{"role", "email", "user_id", "groups", "exp"} {
			if _, ok := got[k]; !ok {
				t.Errorf("request.jwt.claims lacks %q: %v", k, got)
			}
		}
		if got["role"] != "webuser" || got["email"] != "alice@example.com" {
			t.Errorf("request.jwt.claims %v", got)
		}
		if n, _ := got["user_id"].(json.Number); n != "12345678901234567890" {
			t.Errorf("user_id %v, want every digit of 12345678901234567890", got["user_id"])
		}
		t.Run("and SQL reads a claim with ->>", func(t *testing.T) {
			if email := authGetJSON(t, s, "/rpc/auth_email", alice...); email != "alice@example.com" {
				t.Errorf("auth_email() = %v, want alice@example.com", email)
			}
		})
		t.Run("and the per-claim settings are not set", func(t *testing.T) {
			if v := authSetting(t, s, "request.jwt.claim.email", alice...); v != nil {
				t.Errorf("request.jwt.claim.email = %v, want NULL", v)
			}
		})
		t.Run("and an anonymous request's claims are the anonymous role", func(t *testing.T) {
			if got := authSettingJSON(t, s, "request.jwt.claims"); len(got) != 1 || got["role"] != "web_anon" {
				t.Errorf("request.jwt.claims %v, want {role: web_anon}", got)
			}
			if email := authGetJSON(t, s, "/rpc/auth_email"); email != nil {
				t.Errorf("auth_email() = %v, want null", email)
			}
		})
	})

	t.Run("with db_legacy_claims true there is one request.jwt.claim setting per claim", func(t *testing.T) {
		s := startServer(t, "db_legacy_claims true")
		alice := bearer(token(t, claims))
		for _, tc := range []struct {
			name string
			want any
		}{
			{"request.jwt.claim.email", "alice@example.com"},
			{"request.jwt.claim.role", "webuser"},
			{"request.jwt.claim.user_id", "12345678901234567890"},
			{"request.jwt.claim.groups", `["a","b"]`},
			{"request.jwt.claims", nil},
		} {
			t.Run(tc.name+" reads "+authJSONText(t, tc.want), func(t *testing.T) {
				if got := authSetting(t, s, tc.name, alice...); got != tc.want {
					t.Errorf("%s = %#v, want %#v", tc.name, got, tc.want)
				}
			})
		}
		t.Run("and an anonymous request's request.jwt.claim.role is the anonymous role", func(t *testing.T) {
			if got := authSetting(t, s, "request.jwt.claim.role"); got != "web_anon" {
				t.Errorf("request.jwt.claim.role = %v, want web_anon", got)
			}
		})
	})

	t.Run("reading with the second argument true returns NULL when the setting is absent", func(t *testing.T) {
		s := startServer(t)
		for _, name := range []string{"request.jwt.claim.never_sent", "auth.not_a_setting"} {
			if got := authSetting(t, s, name, bearer(token(t, claims))...); got != nil {
				t.Errorf("%s = %#v, want NULL", name, got)
			}
		}
	})
}

func TestAuthRequestSettingsAsSQLSeesThem(t *testing.T) {
	s := startServer(t)

	t.Run("request.method is the HTTP method", func(t *testing.T) {
		if got := authSetting(t, s, "request.method"); got != "GET" {
			t.Errorf("request.method %v on GET", got)
		}
		res := s.do(t, http.MethodPost, "/rpc/auth_setting", `{"name":"request.method"}`)
		if res.Status != 200 || string(res.Body) != `"POST"` {
			t.Errorf("request.method on POST: %d %s", res.Status, res.Body)
		}
	})

	t.Run("request.path is the path pgrest saw", func(t *testing.T) {
		if got := authSetting(t, s, "request.path"); got != "/rpc/auth_setting" {
			t.Errorf("request.path %v", got)
		}
	})

	t.Run("request.headers has lower-case names and the values sent", func(t *testing.T) {
		tok := token(t, jwt.MapClaims{"role": "webuser"})
		h := authSettingJSON(t, s, "request.headers", "X-Auth-Probe", "hello there", "Authorization", "Bearer "+tok)
		if h["x-auth-probe"] != "hello there" {
			t.Errorf("x-auth-probe %v; headers %v", h["x-auth-probe"], h)
		}
		if h["authorization"] != "Bearer "+tok {
			t.Errorf("authorization %v", h["authorization"])
		}
		for k := range h {
			if k != strings.ToLower(k) {
				t.Errorf("header name %q is not lower case", k)
			}
		}
	})

	t.Run("request.cookies maps cookie names to values, and cookies are not in request.headers", func(t *testing.T) {
		c := authSettingJSON(t, s, "request.cookies", "Cookie", "theme=dark; session=abc123")
		if len(c) != 2 || c["theme"] != "dark" || c["session"] != "abc123" {
			t.Errorf("request.cookies %v", c)
		}
		h := authSettingJSON(t, s, "request.headers", "Cookie", "theme=dark")
		if _, ok := h["cookie"]; ok {
			t.Errorf("request.headers holds the cookie header: %v", h)
		}
	})

	t.Run("search_path is the request's schema then db_extra_search_path", func(t *testing.T) {
		if got := authGetJSON(t, s, "/rpc/auth_search_path"); !authStrings(got, "api", "public") {
			t.Errorf("schemas %v, want [api public]", got)
		}
	})

	t.Run("with db_extra_search_path the extra schemas follow in order", func(t *testing.T) {
		s := startServer(t, "db_extra_search_path private public")
		if got := authGetJSON(t, s, "/rpc/auth_search_path"); !authStrings(got, "api", "private", "public") {
			t.Errorf("schemas %v, want [api private public]", got)
		}
	})

	t.Run("app_settings are set in every request", func(t *testing.T) {
		s := startServer(t, "app_settings app.settings.greeting=hello app.settings.answer=42")
		for name, want := range map[string]string{"app.settings.greeting": "hello", "app.settings.answer": "42"} {
			if got := authSetting(t, s, name); got != want {
				t.Errorf("%s = %v, want %s", name, got, want)
			}
			if got := authSetting(t, s, name, bearer(token(t, jwt.MapClaims{"role": "auth_alice"}))...); got != want {
				t.Errorf("%s = %v for an authenticated request, want %s", name, got, want)
			}
		}
	})
}

// authStrings reports whether v is a JSON array of exactly want.
func authStrings(v any, want ...string) bool {
	a, ok := v.([]any)
	if !ok {
		return false
	}
	got := make([]string, 0, len(a))
	for _, x := range a {
		s, _ := x.(string)
		got = append(got, s)
	}
	return slices.Equal(got, want)
}
