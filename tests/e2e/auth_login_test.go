package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// Authentication items 10 to 13: tokens made in the database or by an
// identity provider, the secret as a database setting, the login pattern
// and web sessions.

// authExpectLifetime checks that a token expires about d from now.
func authExpectLifetime(t testing.TB, tok string, d time.Duration) {
	t.Helper()
	exp, err := authClaimsOf(t, tok).GetExpirationTime()
	if err != nil || exp == nil {
		t.Fatalf("token has no exp: %v", err)
	}
	if left := time.Until(exp.Time); left < d-time.Minute || left > d+time.Second {
		t.Errorf("token expires in %v, want about %v", left.Round(time.Second), d)
	}
}

func TestAuthItem10TokensMadeInTheDatabaseOrByAnIdentityProvider(t *testing.T) {
	t.Run("a token signed by a SQL function is accepted", func(t *testing.T) {
		s := startServer(t)
		tok, ok := authGetJSON(t, s, "/rpc/auth_test_token").(string)
		if !ok {
			t.Fatal("auth_test_token did not return a string")
		}
		authVerifyHS256(t, tok)
		if got := authWho(t, s, bearer(tok)...); got != "webuser" {
			t.Errorf("ran as %q, want webuser", got)
		}
		if got := authGetJSON(t, s, "/rpc/auth_email", bearer(tok)...); got != "test@example.com" {
			t.Errorf("email claim %v, want test@example.com", got)
		}
	})

	provider := func(claims jwt.MapClaims) []string {
		base := jwt.MapClaims{"iss": "https://idp.example.com", "sub": "0b7f", "aud": "authenticated", "exp": authNow(time.Hour)}
		for k, v := range claims {
			base[k] = v
		}
		return bearer(token(t, base))
	}
	for _, tc := range []struct {
		name, line string
		claims     jwt.MapClaims
		want       string
	}{
		{"with jwt_role_claim_key .app_metadata.role a nested role claim is used", "jwt_role_claim_key .app_metadata.role",
			jwt.MapClaims{"app_metadata": map[string]any{"role": "auth_alice", "provider": "email"}}, "auth_alice"},
		{"with jwt_role_claim_key .app_metadata.role a top-level role claim is not", "jwt_role_claim_key .app_metadata.role",
			jwt.MapClaims{"role": "auth_alice"}, "web_anon"},
		{`with jwt_role_claim_key ."https://example.com/role" a namespaced claim is used`, `jwt_role_claim_key ."https://example.com/role"`,
			jwt.MapClaims{"https://example.com/role": "auth_bob", "role": "authenticated"}, "auth_bob"},
		{"with jwt_role_claim_key .roles[0] the first array member is used", "jwt_role_claim_key .roles[0]",
			jwt.MapClaims{"roles": []string{"auth_carol", "auth_bob"}}, "auth_carol"},
		{"with jwt_role_claim_key $.app_metadata.role (RFC 9535) a nested role claim is used", "jwt_role_claim_key $.app_metadata.role",
			jwt.MapClaims{"app_metadata": map[string]any{"role": "auth_bob"}}, "auth_bob"},
		{"the alias db_role_claim_key works the same", "db_role_claim_key .app_metadata.role",
			jwt.MapClaims{"app_metadata": map[string]any{"role": "auth_bob"}}, "auth_bob"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, tc.line)
			if got := authWho(t, s, provider(tc.claims)...); got != tc.want {
				t.Errorf("ran as %q, want %s", got, tc.want)
			}
		})
	}

	t.Run("an identity provider's nested role that is not a string is refused with 401 PGRST303", func(t *testing.T) {
		s := startServer(t, "jwt_role_claim_key .app_metadata.role")
		res := s.get(t, "/rpc/auth_whoami", provider(jwt.MapClaims{"app_metadata": map[string]any{"role": []string{"auth_bob"}}})...)
		authExpectTokenError(t, res, 401, "PGRST303", "The JWT role claim must be a non-empty string")
	})

	t.Run("the resolved role is what request.jwt.claims says under role", func(t *testing.T) {
		s := startServer(t, "jwt_role_claim_key .app_metadata.role")
		claims := authSettingJSON(t, s, "request.jwt.claims", provider(jwt.MapClaims{"app_metadata": map[string]any{"role": "auth_alice"}})...)
		if claims["role"] != "auth_alice" || claims["sub"] != "0b7f" {
			t.Errorf("request.jwt.claims %v, want role auth_alice and the provider's sub", claims)
		}
	})
}

func TestAuthItem11SecretIsADatabaseSettingNotWrittenInFunctions(t *testing.T) {
	conn := authConnect(t)
	ctx := context.Background()

	t.Run("the database holds the secret as app.jwt_secret", func(t *testing.T) {
		var cfg []string
		err := conn.QueryRow(ctx, `select setconfig from pg_db_role_setting s join pg_database d on d.oid = s.setdatabase
			where d.datname = current_database() and s.setrole = 0`).Scan(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, c := range cfg {
			found = found || c == "app.jwt_secret="+jwtSecret
		}
		if !found {
			t.Errorf("database settings %q lack app.jwt_secret", cfg)
		}
	})

	t.Run("no function's source holds the secret", func(t *testing.T) {
		var n int
		if err := conn.QueryRow(ctx, `select count(*) from pg_proc where prosrc like '%' || $1 || '%'`, jwtSecret).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%d functions hold the secret in their source", n)
		}
	})

	t.Run("the database's secret has at least 32 characters", func(t *testing.T) {
		// A new session of the database reads app.jwt_secret as login does.
		var n int
		if err := authConnect(t).QueryRow(ctx, `select length(current_setting('app.jwt_secret'))`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n < 32 {
			t.Errorf("app.jwt_secret has %d characters", n)
		}
	})

	t.Run("pgrest refuses to start with a passphrase shorter than 32 characters", func(t *testing.T) {
		err := authLoadError(t, "jwt_secret short-secret-0123456789")
		if err == nil || !strings.Contains(err.Error(), "at least 32") {
			t.Errorf("load error %v, want one saying at least 32 bytes are needed", err)
		}
	})

	s := startServer(t)
	t.Run("the test function's token lives five minutes", func(t *testing.T) {
		tok, _ := authGetJSON(t, s, "/rpc/auth_test_token").(string)
		authExpectLifetime(t, tok, 5*time.Minute)
	})
	t.Run("the login function's token lives one hour", func(t *testing.T) {
		authExpectLifetime(t, s.LoginToken(t, "alice@example.com", "alice-password"), time.Hour)
	})
}

func TestAuthItem12LoginPattern(t *testing.T) {
	s := startServer(t)

	t.Run("login returns a token that reads only that user's rows", func(t *testing.T) {
		for _, tc := range []struct {
			email, pass string
			want        []int
		}{
			{"alice@example.com", "alice-password", []int{1, 2}},
			{"bob@example.com", "bob-password", []int{3}},
		} {
			tok := s.LoginToken(t, tc.email, tc.pass)
			authVerifyHS256(t, tok)
			claims := authClaimsOf(t, tok)
			if claims["role"] != "webuser" || claims["email"] != tc.email {
				t.Errorf("token claims %v, want role webuser and email %s", claims, tc.email)
			}
			authExpectLifetime(t, tok, time.Hour)
			authExpectIDs(t, s.get(t, "/auth_todos", bearer(tok)...), tc.want...)
		}
	})

	t.Run("without a token the to-dos cannot be read at all", func(t *testing.T) {
		s.get(t, "/auth_todos").expectError(t, 401, "42501")
	})

	// The fixture raises invalid_password (28P01) for both failures, which
	// the contract's table answers with 403.
	for _, tc := range []struct{ name, email, pass string }{
		{"a wrong password", "alice@example.com", "not-her-password"},
		{"an unknown e-mail", "nobody@example.com", "alice-password"},
		{"another user's password", "alice@example.com", "bob-password"},
	} {
		t.Run(tc.name+" is refused with 403 28P01 invalid user or password", func(t *testing.T) {
			res := &response{s.Login(t, tc.email, tc.pass)}
			authExpectMessage(t, res.expectError(t, 403, "28P01"), "invalid user or password")
		})
	}

	t.Run("login is for the anonymous role only", func(t *testing.T) {
		res := s.do(t, http.MethodPost, "/rpc/login", `{"email":"alice@example.com","pass":"alice-password"}`,
			bearer(token(t, jwt.MapClaims{"role": "webuser"}))...)
		res.expectError(t, 403, "42501")
	})

	t.Run("login takes no text/plain body: it has no single unnamed text parameter (404 PGRST202)", func(t *testing.T) {
		res := s.do(t, http.MethodPost, "/rpc/login", `{"email":"alice@example.com","pass":"alice-password"}`,
			"Content-Type", "text/plain")
		res.expectError(t, 404, "PGRST202")
	})

	conn := authConnect(t)
	ctx := context.Background()
	insert := func(email, pass, role string) error {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		_, err = tx.Exec(ctx, `insert into basic_auth.users (email, pass, role) values ($1, $2, $3)`, email, pass, role)
		if err == nil {
			// A constraint trigger fires at the end of the statement; make
			// sure every check has run.
			_, err = tx.Exec(ctx, `set constraints all immediate`)
		}
		return err
	}
	for _, tc := range []struct {
		name, email, pass, role, code string
	}{
		{"a user whose role does not exist is refused with a foreign-key violation", "carol@example.com", "pw", "auth_no_such_role", "23503"},
		{"an e-mail that is not an address is refused", "not-an-address", "pw", "webuser", "23514"},
		{"a second user with the same e-mail is refused", "alice@example.com", "pw", "webuser", "23505"},
	} {
		t.Run(tc.name+" ("+tc.code+")", func(t *testing.T) {
			err := insert(tc.email, tc.pass, tc.role)
			if got := pgtest.SQLState(err); got != tc.code {
				t.Errorf("insert error %v (SQLSTATE %q), want %s", err, got, tc.code)
			}
		})
	}
	t.Run("a user with an existing role is accepted", func(t *testing.T) {
		if err := insert("carol@example.com", "pw", "auth_carol"); err != nil {
			t.Errorf("insert: %v", err)
		}
	})

	t.Run("passwords are stored as bcrypt hashes", func(t *testing.T) {
		var stored string
		var matches bool
		err := conn.QueryRow(ctx, `select pass, crypt('alice-password', pass) = pass from basic_auth.users where email = 'alice@example.com'`).
			Scan(&stored, &matches)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(stored, "$2a$") || !matches {
			t.Errorf("stored password %q (matches: %v), want a bcrypt hash of alice-password", stored, matches)
		}
	})

	t.Run("web_anon may execute login and nothing else of basic_auth", func(t *testing.T) {
		var login, sign, usage bool
		err := conn.QueryRow(ctx, `select has_function_privilege('web_anon', 'api.login(text, text)', 'execute'),
			has_function_privilege('web_anon', 'basic_auth.sign(json, text)', 'execute'),
			has_schema_privilege('web_anon', 'basic_auth', 'usage')`).Scan(&login, &sign, &usage)
		if err != nil {
			t.Fatal(err)
		}
		if !login || sign || usage {
			t.Errorf("web_anon: execute login %v, execute sign %v, usage on basic_auth %v; want true, false, false", login, sign, usage)
		}
	})
}

func TestAuthItem13WebSessionsUseCookiesAndTheTokenOnlyAuthenticates(t *testing.T) {
	s := startServer(t)
	res := s.do(t, http.MethodPost, "/rpc/auth_login_cookie", `{"email":"alice@example.com","pass":"alice-password"}`)
	if res.Status != 204 {
		t.Fatalf("status %d, want 204; body %s", res.Status, res.Body)
	}
	cookies := (&http.Response{Header: res.Header}).Cookies()
	if len(cookies) != 1 || cookies[0].Name != "session" {
		t.Fatalf("Set-Cookie %q, want one session cookie", res.Header.Values("Set-Cookie"))
	}
	c := cookies[0]
	t.Run("a login function can hand the token over as a Secure, HttpOnly cookie", func(t *testing.T) {
		if !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
			t.Errorf("cookie %q is not Secure, HttpOnly and SameSite=Strict", res.Header.Get("Set-Cookie"))
		}
		authVerifyHS256(t, c.Value)
	})
	t.Run("the cookie reaches SQL through request.cookies", func(t *testing.T) {
		got := authSettingJSON(t, s, "request.cookies", "Cookie", "session="+c.Value)
		if got["session"] != c.Value {
			t.Errorf("request.cookies %v", got)
		}
	})
	t.Run("the cookie alone does not authenticate", func(t *testing.T) {
		if got := authWho(t, s, "Cookie", "session="+c.Value); got != "web_anon" {
			t.Errorf("ran as %q, want web_anon", got)
		}
	})
	t.Run("the same token in the Authorization header does", func(t *testing.T) {
		if got := authWho(t, s, bearer(c.Value)...); got != "webuser" {
			t.Errorf("ran as %q, want webuser", got)
		}
	})
	t.Run("a wrong password sets no cookie", func(t *testing.T) {
		res := s.do(t, http.MethodPost, "/rpc/auth_login_cookie", `{"email":"alice@example.com","pass":"nope"}`)
		res.expectError(t, 403, "28P01")
		if v := res.Header.Values("Set-Cookie"); len(v) != 0 {
			t.Errorf("Set-Cookie %q on a failed login", v)
		}
	})
}
