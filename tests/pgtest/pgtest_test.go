package pgtest

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var pg *Cluster

func TestMain(m *testing.M) {
	pg = MustStart()
	pg.Run(m)
}

func TestTheServerIsPostgreSQL14OrLater(t *testing.T) {
	conn := Connect(t, pg.CreateDatabase(t, "pgtest_version"))

	var version, database string
	var num int
	err := conn.QueryRow(context.Background(),
		`select version(), current_setting('server_version_num')::int, current_database()`,
	).Scan(&version, &num, &database)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`^PostgreSQL (\d+)`).FindStringSubmatch(version)
	if m == nil {
		t.Fatalf("version() = %q, want PostgreSQL <major>...", version)
	}
	major, _ := strconv.Atoi(m[1])
	if major != num/10000 {
		t.Errorf("version() says major %d, server_version_num %d", major, num)
	}
	// request.jwt.claims as one JSON setting needs 14; the legacy per-claim
	// settings are tested with db_legacy_claims on the same server.
	if major < 14 {
		t.Errorf("server major version %d, want >= 14", major)
	}
	if database != "pgtest_version" {
		t.Errorf("connected to database %q, want pgtest_version", database)
	}
}

func TestExecRunsAFixtureOfSeveralStatements(t *testing.T) {
	dsn := pg.CreateDatabase(t, "pgtest_exec")
	Exec(t, dsn, `
		create table items (id int primary key, name text);
		insert into items values (1, 'one'), (2, 'two');
		create function item_count() returns bigint language sql as $$ select count(*) from items $$;
	`)
	var n int64
	if err := Connect(t, dsn).QueryRow(context.Background(), `select item_count()`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("item_count() = %d, want 2", n)
	}

	t.Run("a failing statement is reported with its SQLSTATE and undoes the fixture", func(t *testing.T) {
		err := ExecSQL(context.Background(), dsn, `insert into items values (3, 'three'); select no_such_column from items`)
		if got := SQLState(err); got != "42703" {
			t.Fatalf("ExecSQL error = %v (SQLSTATE %q), want SQLSTATE 42703", err, got)
		}
		if err := Connect(t, dsn).QueryRow(context.Background(), `select count(*) from items`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 2 {
			t.Errorf("count after the failed fixture = %d, want 2", n)
		}
	})
}

func TestDSNForConnectsAsALoginRoleWithItsPassword(t *testing.T) {
	dsn := pg.CreateDatabase(t, "pgtest_roles")
	Exec(t, dsn, `
		create role pgtest_login login password 'right-password';
		create table notes (body text);
		insert into notes values ('a'), ('b');
		grant select on notes to pgtest_login;
	`)
	t.Cleanup(func() { Exec(t, dsn, `drop owned by pgtest_login; drop role pgtest_login`) })

	var user string
	var n int
	err := Connect(t, DSNFor(dsn, "pgtest_login", "right-password")).QueryRow(context.Background(),
		`select current_user, count(*) from notes group by 1`).Scan(&user, &n)
	if err != nil {
		t.Fatal(err)
	}
	if user != "pgtest_login" || n != 2 {
		t.Errorf("got user %q and %d notes, want pgtest_login and 2", user, n)
	}

	t.Run("a wrong password is refused with SQLSTATE 28P01", func(t *testing.T) {
		if os.Getenv(EnvDSN) != "" {
			t.Skip("the server named by " + EnvDSN + " may trust TCP connections")
		}
		conn, err := pgx.Connect(context.Background(), DSNFor(dsn, "pgtest_login", "wrong-password"))
		if err == nil {
			conn.Close(context.Background())
		}
		if got := SQLState(err); got != "28P01" {
			t.Errorf("connect with a wrong password: %v (SQLSTATE %q), want SQLSTATE 28P01", err, got)
		}
	})
}

func TestDSNForReplacesTheUserInBothDSNForms(t *testing.T) {
	tests := []struct {
		name, dsn, want string
	}{
		{
			name: "a URL keeps host, port, database and options",
			dsn:  "postgres://postgres:pw@127.0.0.1:5432/app?sslmode=disable",
			want: "postgres://authenticator:s%40cret@127.0.0.1:5432/app?sslmode=disable",
		},
		{
			name: "a keyword/value string gets later keywords, which win",
			dsn:  "host=127.0.0.1 user=postgres dbname=app",
			want: `host=127.0.0.1 user=postgres dbname=app user='authenticator' password='s@cret'`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DSNFor(tt.dsn, "authenticator", "s@cret"); got != tt.want {
				t.Errorf("DSNFor = %q, want %q", got, tt.want)
			}
			cfg, err := pgconn.ParseConfig(DSNFor(tt.dsn, "authenticator", "s@cret"))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.User != "authenticator" || cfg.Password != "s@cret" || cfg.Database != "app" {
				t.Errorf("parsed user %q password %q database %q", cfg.User, cfg.Password, cfg.Database)
			}
		})
	}
}
