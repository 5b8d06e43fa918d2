package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"

	"github.com/pgrest/caddy-pgrest/demo"
	"github.com/pgrest/caddy-pgrest/realtime"
)

// The demo schema is the README's login recipe; these tests keep it working.

const demoSecret = "a-test-secret-of-at-least-thirty-two-characters"

// loadDemo makes a database holding demo/roles.sql and demo/schema.sql, with app.jwt_secret set
// as make demo sets it, and returns URLs for the superuser and the
// authenticator.
func loadDemo(t *testing.T) (superuser, authenticator string) {
	t.Helper()
	dsn := pg.CreateDatabase(t, "pgtest_demo")
	Exec(t, dsn, demo.RolesSQL)
	Exec(t, dsn, demo.SchemaSQL)
	Exec(t, dsn, realtime.SQL)
	Exec(t, dsn, demo.RealtimeSQL)
	Exec(t, dsn, `alter database pgtest_demo set app.jwt_secret = '`+demoSecret+`';
		alter role authenticator password 'authenticator-test-password'`)
	return dsn, DSNFor(dsn, "authenticator", "authenticator-test-password")
}

// asRole runs fn in a transaction switched to role with the given claims, as
// pgrest does for a request.
func asRole(t *testing.T, conn *pgx.Conn, role, claims string, fn func(tx pgx.Tx) error) error {
	t.Helper()
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)`, role, claims); err != nil {
		t.Fatal(err)
	}
	return fn(tx)
}

func TestDemoLoginSignsAVerifiableToken(t *testing.T) {
	_, authenticator := loadDemo(t)
	conn := Connect(t, authenticator)
	ctx := context.Background()

	login := func(email, pass string) (string, error) {
		var token string
		err := asRole(t, conn, "web_anon", `{"role":"web_anon"}`, func(tx pgx.Tx) error {
			return tx.QueryRow(ctx, `select (api.login($1, $2)).token`, email, pass).Scan(&token)
		})
		return token, err
	}

	token, err := login("alice@example.com", "alice-password")
	if err != nil {
		t.Fatal(err)
	}
	claims := jwt.MapClaims{}
	parsed, err := jwt.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) { return []byte(demoSecret), nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired())
	if err != nil || !parsed.Valid {
		t.Fatalf("token %q does not verify with the secret: %v", token, err)
	}
	if claims["role"] != "webuser" || claims["email"] != "alice@example.com" {
		t.Errorf("claims = %v, want role webuser and email alice@example.com", claims)
	}
	exp, _ := claims.GetExpirationTime()
	if d := time.Until(exp.Time); d < 59*time.Minute || d > 61*time.Minute {
		t.Errorf("token expires in %v, want about an hour", d)
	}

	t.Run("a token signed with another secret does not verify", func(t *testing.T) {
		_, err := jwt.Parse(token, func(*jwt.Token) (any, error) { return []byte("another-secret"), nil })
		if err == nil {
			t.Error("the token verified with the wrong secret")
		}
	})

	for _, tc := range []struct{ name, email, pass string }{
		{"a wrong password is refused with 28P01", "alice@example.com", "wrong"},
		{"an unknown e-mail is refused the same way", "nobody@example.com", "alice-password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := login(tc.email, tc.pass)
			if got := SQLState(err); got != "28P01" {
				t.Fatalf("login error %v (SQLSTATE %q), want 28P01", err, got)
			}
			if msg := err.Error(); msg != "ERROR: invalid user or password (SQLSTATE 28P01)" {
				t.Errorf("login error message %q", msg)
			}
		})
	}
}

func TestDemoUsersAreCheckedAndHashed(t *testing.T) {
	superuser, _ := loadDemo(t)
	conn := Connect(t, superuser)
	ctx := context.Background()

	t.Run("a user with a role that does not exist is refused with 23503", func(t *testing.T) {
		_, err := conn.Exec(ctx, `insert into basic_auth.users values ('carol@example.com', 'pw', 'no_such_role')`)
		if got := SQLState(err); got != "23503" {
			t.Errorf("insert error %v (SQLSTATE %q), want 23503", err, got)
		}
	})

	t.Run("an e-mail that is not an address is refused with 23514", func(t *testing.T) {
		_, err := conn.Exec(ctx, `insert into basic_auth.users values ('carol', 'pw', 'webuser')`)
		if got := SQLState(err); got != "23514" {
			t.Errorf("insert error %v (SQLSTATE %q), want 23514", err, got)
		}
	})

	t.Run("passwords are stored as bcrypt hashes", func(t *testing.T) {
		var hash string
		var matches bool
		err := conn.QueryRow(ctx, `select pass, pass = crypt('bob-password', pass) from basic_auth.users where email = 'bob@example.com'`).Scan(&hash, &matches)
		if err != nil {
			t.Fatal(err)
		}
		if hash == "bob-password" || len(hash) != 60 || !matches {
			t.Errorf("stored pass %q (matches %v), want a bcrypt hash of bob-password", hash, matches)
		}
	})
}

func TestDemoRolesSeeWhatTheirPoliciesAllow(t *testing.T) {
	_, authenticator := loadDemo(t)
	conn := Connect(t, authenticator)
	ctx := context.Background()

	t.Run("a user sees only their to-dos and new ones are theirs", func(t *testing.T) {
		const claims = `{"role":"webuser","email":"bob@example.com"}`
		err := asRole(t, conn, "webuser", claims, func(tx pgx.Tx) error {
			var owner string
			if err := tx.QueryRow(ctx, `insert into api.todos (task) values ('test') returning owner`).Scan(&owner); err != nil {
				return err
			}
			if owner != "bob@example.com" {
				t.Errorf("new to-do owner %q, want bob@example.com", owner)
			}
			var total, bobs int
			if err := tx.QueryRow(ctx, `select count(*), count(*) filter (where owner = 'bob@example.com') from api.todos`).Scan(&total, &bobs); err != nil {
				return err
			}
			if total != 2 || bobs != 2 {
				t.Errorf("bob sees %d to-dos, %d of them his; want 2 and 2", total, bobs)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})

	t.Run("the anonymous role reads public announcements only", func(t *testing.T) {
		var n int
		err := asRole(t, conn, "web_anon", `{"role":"web_anon"}`, func(tx pgx.Tx) error {
			return tx.QueryRow(ctx, `select count(*) from api.announcements`).Scan(&n)
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != 2 {
			t.Errorf("web_anon sees %d announcements, want the 2 public ones", n)
		}
	})

	denied := []struct{ name, sql string }{
		{"the anonymous role may not read to-dos", `select * from api.todos`},
		{"the anonymous role may not call the signer", `select basic_auth.sign('{}', 'x')`},
		{"the anonymous role may not read the users", `select * from basic_auth.users`},
	}
	for _, tc := range denied {
		t.Run(tc.name, func(t *testing.T) {
			err := asRole(t, conn, "web_anon", `{"role":"web_anon"}`, func(tx pgx.Tx) error {
				_, err := tx.Exec(ctx, tc.sql)
				return err
			})
			if got := SQLState(err); got != "42501" {
				t.Errorf("error %v (SQLSTATE %q), want 42501", err, got)
			}
		})
	}

	t.Run("the authenticator has no privileges of its own", func(t *testing.T) {
		_, err := conn.Exec(ctx, `select * from api.announcements`)
		if got := SQLState(err); got != "42501" {
			t.Errorf("error %v (SQLSTATE %q), want 42501", err, got)
		}
	})
}

// The demo's realtime policies: a user may use the private topic of their
// own email only, checked as pgrest's realtime socket checks it.
func TestDemoRealtimeTopicPolicies(t *testing.T) {
	_, authenticator := loadDemo(t)
	conn := Connect(t, authenticator)
	ctx := context.Background()
	const claims = `{"role":"webuser","email":"bob@example.com"}`
	for topic, want := range map[string]bool{"user:bob@example.com": true, "user:alice@example.com": false} {
		var seen bool
		err := asRole(t, conn, "webuser", claims, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `select set_config('realtime.topic', $1, true)`, topic); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `reset role`); err != nil {
				return err
			}
			var id string
			if err := tx.QueryRow(ctx, `select realtime.authorization_probe($1, 'broadcast')`, topic).Scan(&id); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `set local role webuser`); err != nil {
				return err
			}
			return tx.QueryRow(ctx, `select exists (select from realtime.messages where id = $1::uuid)`, id).Scan(&seen)
		})
		if err != nil {
			t.Fatal(err)
		}
		if seen != want {
			t.Errorf("bob reads %s: %v, want %v", topic, seen, want)
		}
	}
}
