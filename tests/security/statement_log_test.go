package security

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// loggedParametersWarning begins pgrest's warning that PostgreSQL logs
// its statements' parameters.
const loggedParametersWarning = "PostgreSQL logs the values of pgrest's statement parameters"

// With statement logging on, PostgreSQL logs the parameters of pgrest's
// statements, and with them a token's claims and the app settings'
// values: pgrest warns at start and names the way out, and with
// log_parameter_max_length = 0 for the authenticator neither reaches the
// server's log while the statements still do.
func TestStatementLoggingKeepsClaimsAndAppSettingsOutOfTheLogWhenTold(t *testing.T) {
	serverLog := db.Cluster.LogFile()
	if serverLog == "" {
		t.Skip("the server's log is not this test's to read (PGREST_TEST_DSN)")
	}
	database := "pgrest_security"
	pgtest.Exec(t, db.SuperDSN, `alter role authenticator in database `+database+` set log_statement = 'all'`)
	t.Cleanup(func() {
		pgtest.Exec(t, db.SuperDSN, `alter role authenticator in database `+database+` reset log_statement;
			alter role authenticator in database `+database+` reset log_parameter_max_length`)
	})

	// serveAndCall starts pgrest with an app setting, calls it with a
	// token carrying a claim, both marked with tag, and returns what
	// pgrest logged.
	serveAndCall := func(t *testing.T, tag string) string {
		caddyLog := filepath.Join(t.TempDir(), "caddy.log")
		s, _, err := pgresttest.Serve(map[string]string{
			"db_uri":       db.AuthenticatorDSN(),
			"db_schemas":   "api",
			"db_anon_role": "web_anon",
			"jwt_secret":   secret,
			"app_settings": "app.settings.signing_key=APPSETTING-" + tag,
		}, pgresttest.Options{LogFile: caddyLog})
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := pgresttest.Stop(); err != nil {
				t.Errorf("stopping Caddy: %v", err)
			}
		}()
		token := pgresttest.Token(t, secret, jwt.MapClaims{"role": "webuser", "email": "CLAIM-" + tag})
		s.Get(t, "/authors?id=eq.1", pgresttest.Bearer(token)...).ExpectStatus(t, 200)
		logged, err := os.ReadFile(caddyLog)
		if err != nil {
			t.Fatal(err)
		}
		return string(logged)
	}
	// serverLogged waits for marker to reach the server's log, for 30 s at
	// most (generous for a loaded machine), and returns the log.
	serverLogged := func(t *testing.T, marker string) string {
		var text string
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			b, err := os.ReadFile(serverLog)
			if err != nil {
				t.Fatal(err)
			}
			if text = string(b); strings.Contains(text, marker) {
				break
			}
		}
		return text
	}

	t.Run("with parameters logged, pgrest warns", func(t *testing.T) {
		tag := randomSecret()
		logged := serveAndCall(t, tag)
		if !strings.Contains(logged, loggedParametersWarning) {
			t.Errorf("no warning that PostgreSQL logs statement parameters in pgrest's log")
		}
		text := serverLogged(t, "APPSETTING-"+tag)
		for _, marker := range []string{"APPSETTING-" + tag, "CLAIM-" + tag} {
			if !strings.Contains(text, marker) {
				t.Errorf("%s is not in the server's log: the case the warning is about did not arise", marker)
			}
		}
	})

	t.Run("with log_parameter_max_length 0, nothing of the request is logged and pgrest does not warn", func(t *testing.T) {
		pgtest.Exec(t, db.SuperDSN, `alter role authenticator in database `+database+` set log_parameter_max_length = 0`)
		tag := randomSecret()
		logged := serveAndCall(t, tag)
		if strings.Contains(logged, loggedParametersWarning) {
			t.Errorf("pgrest warns although PostgreSQL logs no parameters")
		}
		// A statement the superuser logs after pgrest's marks the point
		// the server's log has reached.
		conn := pgtest.Connect(t, db.SuperDSN)
		for _, sql := range []string{`set log_statement = 'all'`, `select 'LOGGED-AFTER-` + tag + `'`} {
			if _, err := conn.Exec(context.Background(), sql); err != nil {
				t.Fatal(err)
			}
		}
		text := serverLogged(t, "LOGGED-AFTER-"+tag)
		if !strings.Contains(text, "set_config('role'") {
			t.Errorf("the server's log has no statement of pgrest's: statement logging is off")
		}
		for _, marker := range []string{"APPSETTING-" + tag, "CLAIM-" + tag} {
			if strings.Contains(text, marker) {
				t.Errorf("%s is in the server's log", marker)
			}
		}
	})
}
