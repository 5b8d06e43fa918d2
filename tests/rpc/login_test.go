package rpc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The login pattern of the contract (Authentication item 12) as
// demo/schema.sql builds it: users in the unexposed schema basic_auth, a
// SECURITY DEFINER api.login that checks the bcrypt hash and signs a token
// in SQL with the database's app.jwt_secret, execute granted to web_anon.

// sqlError runs statements as the superuser and returns the database error.
func sqlError(t testing.TB, statements string) *pgconn.PgError {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := pgtest.ExecSQL(ctx, superDSN, statements)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		t.Fatalf("%s: error %v, want a database error", statements, err)
	}
	return pgErr
}

func TestLoginWithTokensSignedInTheDatabase(t *testing.T) {
	s := startServer(t)
	invalid := errorJSON("28P01", "invalid user or password", nil, nil)

	// 28P01 (invalid_password) is in the contract's 28* row: 403.
	runCalls(t, s, []call{
		{name: "a wrong password is 403 28P01 invalid user or password",
			method: "POST", path: "/rpc/login", body: `{"email": "alice@example.com", "pass": "not-her-password"}`, status: 403, want: invalid},
		{name: "an unknown e-mail is 403 28P01 invalid user or password",
			method: "POST", path: "/rpc/login", body: `{"email": "nobody@example.com", "pass": "alice-password"}`, status: 403, want: invalid},
		{name: "another user's password is 403 28P01 invalid user or password",
			method: "POST", path: "/rpc/login", body: `{"email": "alice@example.com", "pass": "bob-password"}`, status: 403, want: invalid},
		{name: "login without the password is 404 PGRST202",
			method: "POST", path: "/rpc/login", body: `{"email": "alice@example.com"}`, status: 404,
			want: errorJSON("PGRST202", "Could not find the function api.login(email) in the schema cache",
				"Searched for the function api.login with parameter email or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
				"Perhaps you meant to call the function api.login(email, pass)")},
		{name: "login is volatile: OPTIONS allows OPTIONS and POST",
			method: "OPTIONS", path: "/rpc/login", status: 200, header: map[string]string{"Allow": "OPTIONS,POST"}},
		{name: "without a token the to-dos cannot be read: 401 42501",
			method: "GET", path: "/todos", status: 401,
			want: errorJSON("42501", "permission denied for table todos", nil, nil)},
		{name: "the users table is not exposed",
			method: "GET", path: "/users", status: 404,
			want: errorJSON("PGRST205", "Could not find the table 'api.users' in the schema cache", nil, nil)},
	})

	t.Run("a correct login returns a token signed with app.jwt_secret carrying role, email and exp", func(t *testing.T) {
		tok := s.LoginToken(t, "alice@example.com", "alice-password")
		claims := jwt.MapClaims{}
		_, err := jwt.ParseWithClaims(tok, claims, func(*jwt.Token) (any, error) { return []byte(jwtSecret), nil },
			jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired())
		if err != nil {
			t.Fatalf("token %q does not verify with the secret: %v", tok, err)
		}
		if len(claims) != 3 || claims["role"] != "webuser" || claims["email"] != "alice@example.com" {
			t.Errorf("claims %v, want exactly role webuser, email alice@example.com and exp", claims)
		}
		exp, _ := claims.GetExpirationTime()
		if left := time.Until(exp.Time); left < 59*time.Minute || left > time.Hour+time.Second {
			t.Errorf("token expires in %v, want an hour", left.Round(time.Second))
		}
	})

	for _, tc := range []struct{ email, pass, want string }{
		{"alice@example.com", "alice-password", `[{"task": "buy oat milk"}, {"task": "write the pgrest talk"}, {"task": "water the plants"}]`},
		{"bob@example.com", "bob-password", `[{"task": "renew the passport"}]`},
	} {
		t.Run("the token of "+tc.email+" reads that user's to-dos only", func(t *testing.T) {
			tok := s.LoginToken(t, tc.email, tc.pass)
			s.Get(t, "/todos?select=task&order=id", bearer(tok)...).Expect(t, 200, tc.want, nil)
		})
	}

	t.Run("the login function is for the anonymous role only: a user's token gets 403 42501", func(t *testing.T) {
		tok := s.LoginToken(t, "alice@example.com", "alice-password")
		s.Do(t, "POST", "/rpc/login", `{"email": "alice@example.com", "pass": "alice-password"}`, bearer(tok)...).
			Expect(t, 403, errorJSON("42501", "permission denied for function login", nil, nil), nil)
	})

	t.Run("a user whose role does not exist is refused with a foreign-key violation (23503)", func(t *testing.T) {
		e := sqlError(t, `insert into basic_auth.users (email, pass, role) values ('carol@example.com', 'pw', 'no_such_role')`)
		if e.Code != "23503" || e.Message != "unknown database role: no_such_role" ||
			e.Hint != "Create the role first, and grant it to authenticator." {
			t.Errorf("error %s %q (hint %q), want 23503 unknown database role: no_such_role", e.Code, e.Message, e.Hint)
		}
	})

	t.Run("a user added with an existing role logs in with a hashed password and sees no one else's to-dos", func(t *testing.T) {
		sql(t, `insert into basic_auth.users (email, pass, role) values ('carol@example.com', 'carol-password', 'webuser')`)
		t.Cleanup(func() { sql(t, `delete from basic_auth.users where email = 'carol@example.com'`) })
		if n := sqlInt(t, `select count(*) from basic_auth.users where email = 'carol@example.com'
			and pass <> 'carol-password' and pass like '$2a$%'`); n != 1 {
			t.Errorf("carol's password is not stored as a bcrypt hash")
		}
		tok := s.LoginToken(t, "carol@example.com", "carol-password")
		s.Get(t, "/todos", bearer(tok)...).Expect(t, 200, `[]`, nil)
	})
}
