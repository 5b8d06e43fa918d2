package executor

import (
	"strings"
	"testing"
)

// The expectations follow what PostgreSQL 15 answers to
// set_config('role', role, true) run by the authenticator.
func TestRunsAsAuthenticator(t *testing.T) {
	long := strings.Repeat("a", maxIdentifierBytes)
	tests := []struct {
		name, role, authenticator string
		want                      bool
	}{
		{"none resets to the session user", "none", "authenticator", true},
		{"none is refused even when the authenticator is unknown", "none", "", true},
		{"NONE names a role called NONE", "NONE", "authenticator", false},
		{"None names a role called None", "None", "authenticator", false},
		{"none with a blank is another role name", " none", "authenticator", false},
		{"the authenticator's own name runs as the authenticator", "authenticator", "authenticator", true},
		{"role names are case sensitive", "Authenticator", "authenticator", false},
		{"a quoted name is another role", `"authenticator"`, "authenticator", false},
		{"a trailing blank is another role", "authenticator ", "authenticator", false},
		{"a granted role is fine", "webuser", "authenticator", false},
		{"a name longer than 63 bytes is cut to the authenticator's", long + "zzz", long, true},
		{"a cut that would split a character backs off to the authenticator's", long[:62] + "é", long[:62], true},
		{"a long name with a different start is not the authenticator", "b" + long, long, false},
		{"a long name starting with a short authenticator's is cut elsewhere", "auth" + long, "auth", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RunsAsAuthenticator(tt.role, tt.authenticator); got != tt.want {
				t.Errorf("RunsAsAuthenticator(%q, %q) = %v, want %v", tt.role, tt.authenticator, got, tt.want)
			}
		})
	}
}

func TestAuthenticatorOfURI(t *testing.T) {
	got, err := AuthenticatorOfURI("postgres://authenticator:pw@127.0.0.1:5432/app")
	if err != nil || got != "authenticator" {
		t.Errorf("got %q, %v; want authenticator", got, err)
	}
	t.Setenv("PGUSER", "from_environment")
	got, err = AuthenticatorOfURI("host=127.0.0.1 dbname=app")
	if err != nil || got != "from_environment" {
		t.Errorf("a URI without a user: got %q, %v; want the PGUSER default", got, err)
	}
	if _, err := AuthenticatorOfURI("postgres://u:pw@127.0.0.1:notaport/db"); err == nil || !strings.Contains(err.Error(), "db_uri") {
		t.Errorf("an unparsable URI: got %v, want a db_uri error", err)
	}
}
