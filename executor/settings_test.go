package executor

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/jwtauth"
)

func TestHeadersJSON(t *testing.T) {
	r := httptest.NewRequest("GET", "http://api.example.com/items", nil)
	r.Header.Set("X-Plain", "value")
	r.Header.Add("X-Twice", "a")
	r.Header.Add("X-Twice", "b")
	r.Header.Set("X-Quote", `say "hi" \ bye`)
	r.Header.Set("X-Unicode", "café")
	r.Header.Set("Cookie", "session=secret")
	var got map[string]string
	if err := json.Unmarshal(headersJSON(r), &got); err != nil {
		t.Fatalf("request.headers is not JSON: %v: %s", err, headersJSON(r))
	}
	want := map[string]string{
		"x-plain": "value", "x-twice": "a, b", "x-quote": `say "hi" \ bye`, "x-unicode": "café",
		"host": "api.example.com",
	}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v (the cookie header belongs to request.cookies)", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func TestVariableSettings(t *testing.T) {
	t.Run("app settings, extra settings over them, and claims, in name order", func(t *testing.T) {
		got := variableSettings([]Setting{{Name: "app.b", Value: `"x"`}, {Name: "app.a", Value: "1"}},
			[]Setting{{Name: "app.a", Value: "2"}}, map[string]string{"email": "a@b.c"})
		want := []Setting{{Name: "app.a", Value: "2"}, {Name: "app.b", Value: `"x"`}, {Name: "request.jwt.claim.email", Value: "a@b.c"}}
		if !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
	t.Run("no settings are none", func(t *testing.T) {
		if got := variableSettings(nil, nil, nil); len(got) != 0 {
			t.Errorf("got %v", got)
		}
	})
}

func TestSearchPaths(t *testing.T) {
	got := searchPaths([]string{"api", `we"ird`}, []string{"public", "ext"})
	if string(got["api"]) != `"api", "public", "ext"` || string(got[`we"ird`]) != `"we""ird", "public", "ext"` {
		t.Errorf("got %q", got)
	}
}

func TestCookiesJSON(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	if got := string(cookiesJSON(r)); got != "{}" {
		t.Errorf("no cookie: got %s", got)
	}
	r.Header.Set("Cookie", "a=1; b=two")
	var m map[string]string
	if err := json.Unmarshal(cookiesJSON(r), &m); err != nil || m["a"] != "1" || m["b"] != "two" || len(m) != 2 {
		t.Errorf("got %v, %v", m, err)
	}
}

func TestSettingsStatementAppliesTheRolesSettings(t *testing.T) {
	e := &Executor{cfg: Config{AppSettings: []Setting{{Name: "app.a", Value: "1"}}}}
	e.appSettingPairs = variableSettings(e.cfg.AppSettings, nil, nil)
	r := httptest.NewRequest("GET", "/items", nil)
	id := jwtauth.Identity{Role: "web_anon", ClaimsJSON: `{"role":"web_anon"}`}
	role := []Setting{{Name: "statement_timeout", Value: "500ms"}, {Name: "work_mem", Value: "8MB"}}
	function := []Setting{{Name: "statement_timeout", Value: "2s"}}

	plain := e.settingsStatement(r, id, "api", false, nil, nil)
	if plain.SQL != settingsTexts[1] || len(plain.Args) != 9 || string(plain.Args[7]) != "app.a" || string(plain.Args[8]) != "1" {
		t.Fatalf("app settings: %s %q", plain.SQL, plain.Args)
	}
	st := e.settingsStatement(r, id, "api", false, role, function)
	if st.SQL != settingsTexts[3] {
		t.Fatalf("three variable settings, got %s", st.SQL)
	}
	got := map[string]string{}
	for i := 7; i+1 < len(st.Args); i += 2 {
		got[string(st.Args[i])] = string(st.Args[i+1])
	}
	want := map[string]string{"app.a": "1", "statement_timeout": "2s", "work_mem": "8MB"}
	if len(got) != len(want) || len(st.Args) != 7+2*len(want) {
		t.Fatalf("settings %v, want %v (the function's SET clause over the role's)", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if len(role) != 2 || role[0].Value != "500ms" {
		t.Errorf("the cached role settings were changed: %v", role)
	}
}

func TestSettingsStatementTexts(t *testing.T) {
	if settingsTexts[0].String() != settingsSQL || legacySettingsTexts[0].String() != legacySettingsSQL {
		t.Fatal("without variable settings the statement is the constant one")
	}
	want := settingsSQL + ", set_config($8, $9, true), set_config($10, $11, true)"
	if got := settingsTexts[2].String(); got != want {
		t.Errorf("two settings:\n got %s\nwant %s", got, want)
	}
	want = legacySettingsSQL + ", set_config($7, $8, true)"
	if got := legacySettingsTexts[1].String(); got != want {
		t.Errorf("legacy, one setting:\n got %s\nwant %s", got, want)
	}
}

func TestSettingsStatementPastTheLimitReadsAJSONObject(t *testing.T) {
	e := &Executor{}
	r := httptest.NewRequest("GET", "/items", nil)
	claims := map[string]any{"role": "web_anon"}
	for i := range maxSettingArgs + 5 {
		claims[fmt.Sprintf("c%02d", i)] = "v"
	}
	id := jwtauth.Identity{Role: "web_anon", Claims: claims}
	st := e.settingsStatement(r, id, "api", true, nil, nil)
	if st.SQL != legacySettingsTexts[maxSettingArgs+1] || !strings.Contains(st.SQL.String(), "json_each_text($7::json)") {
		t.Fatalf("got %s", st.SQL)
	}
	if len(st.Args) != 7 {
		t.Fatalf("%d arguments", len(st.Args))
	}
	var got map[string]string
	if err := json.Unmarshal(st.Args[6], &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(claims) || got["request.jwt.claim.c00"] != "v" || got["request.jwt.claim.role"] != "web_anon" {
		t.Errorf("got %v", got)
	}
}
