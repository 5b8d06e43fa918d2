package executor

import (
	"strings"
	"testing"
)

func TestIdentitySettings(t *testing.T) {
	st, err := IdentitySettings("web_user", []byte(`{"role":"web_user","sub":"alice"}`), false)
	if err != nil {
		t.Fatal(err)
	}
	if st.SQL.String() != identitySettingsSQL || len(st.Args) != 2 || string(st.Args[0]) != "web_user" ||
		string(st.Args[1]) != `{"role":"web_user","sub":"alice"}` {
		t.Errorf("statement %s %q", st.SQL, st.Args)
	}
	// Legacy: one setting per claim, strings as they are, anything else
	// as JSON, the role always there, in name order.
	st, err = IdentitySettings("web_user", []byte(`{"sub":"alice","n":12345678901234567890,"ok":true}`), true)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, a := range st.Args {
		args = append(args, string(a))
	}
	want := []string{"web_user", "request.jwt.claim.n", "12345678901234567890", "request.jwt.claim.ok", "true",
		"request.jwt.claim.role", "web_user", "request.jwt.claim.sub", "alice"}
	if strings.Join(args, "|") != strings.Join(want, "|") {
		t.Errorf("args %q, want %q", args, want)
	}
	if got := strings.Count(st.SQL.String(), "set_config("); got != 5 {
		t.Errorf("%d set_config calls in %s, want 5", got, st.SQL)
	}
	if _, err := IdentitySettings("web_user", []byte(`not json`), true); err == nil {
		t.Error("claims that are not JSON accepted")
	}
}
