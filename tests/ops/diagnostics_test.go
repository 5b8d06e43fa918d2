package ops

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

func TestStartupLogsTheLoadedSchemaCache(t *testing.T) {
	s := startReadySite(t)
	var l map[string]any
	eventually(t, 30*time.Second, "no \"schema cache loaded\" line", func() bool {
		lines := logLines(t, s.Log, "schema cache loaded")
		if len(lines) > 0 {
			l = lines[0]
		}
		return l != nil
	})
	if l["level"] != "info" || l["relations"] == nil || l["functions"] == nil || l["took"] == nil {
		t.Errorf("schema cache loaded line = %v", l)
	}
	if v, _ := l["postgresql"].(string); !strings.HasPrefix(v, "1") || !strings.Contains(v, ".") {
		t.Errorf("postgresql version = %q, want major.minor", v)
	}
}

// The cause of a failure to reach the database is logged on the first
// failure and again at each backoff step, whether or not pgrest listens
// for notifications (the listener used to be the only one to say).
func TestLogsWhyTheDatabaseCannotBeReached(t *testing.T) {
	port, err := pgresttest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, uri, cause string
	}{
		{"wrong password", authDSN("a-wrong-password"), "password authentication failed"},
		{"server stopped", fmt.Sprintf("postgres://authenticator:pw@127.0.0.1:%d/app", port), "connection refused"},
		{"database missing", strings.Replace(authDSN(fixtures.AuthenticatorPassword), "/pgrest_ops", "/no_such_database", 1), "does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := startSite(t, "db_uri "+pgresttest.Quote(c.uri), "db_channel_enabled false")
			eventually(t, 30*time.Second, "fewer than two error lines naming "+c.cause, func() bool {
				n := 0
				for _, l := range logLines(t, s.Log, "loading the schema cache") {
					if l["level"] == "error" && strings.Contains(fmt.Sprint(l["error"]), c.cause) {
						n++
					}
				}
				return n >= 2
			})
			for _, l := range logLines(t, s.Log, "loading the schema cache") {
				if strings.Contains(fmt.Sprint(l), "a-wrong-password") {
					t.Fatalf("the log shows the password: %v", l)
				}
			}
		})
	}
}
