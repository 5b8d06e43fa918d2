package executor

import (
	"encoding/json"
	"net/http/httptest"
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

func TestSettingsObject(t *testing.T) {
	t.Run("app settings, extra settings over them, and claims", func(t *testing.T) {
		var got map[string]string
		obj := settingsObject([]Setting{{Name: "app.a", Value: "1"}, {Name: "app.b", Value: `"x"`}},
			[]Setting{{Name: "app.a", Value: "2"}}, map[string]string{"email": "a@b.c"})
		if err := json.Unmarshal(obj, &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"app.a": "2", "app.b": `"x"`, "request.jwt.claim.email": "a@b.c"}
		if len(got) != len(want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %q, want %q", k, got[k], v)
			}
		}
	})
	t.Run("no settings are an empty object", func(t *testing.T) {
		if got := string(settingsObject(nil, nil, nil)); got != "{}" {
			t.Errorf("got %s", got)
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
	e.appSettingsJSON = settingsObject(e.cfg.AppSettings, nil, nil)
	r := httptest.NewRequest("GET", "/items", nil)
	id := jwtauth.Identity{Role: "web_anon", ClaimsJSON: `{"role":"web_anon"}`}
	role := []Setting{{Name: "statement_timeout", Value: "500ms"}, {Name: "work_mem", Value: "8MB"}}
	function := []Setting{{Name: "statement_timeout", Value: "2s"}}

	plain := e.settingsStatement(r, id, "api", false, nil, nil)
	st := e.settingsStatement(r, id, "api", false, role, function)
	if st.SQL.String() != plain.SQL.String() {
		t.Fatal("the role's settings changed the settings statement's text; it must stay one prepared statement")
	}
	var got map[string]string
	if err := json.Unmarshal(st.Args[len(st.Args)-1], &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"app.a": "1", "statement_timeout": "2s", "work_mem": "8MB"}
	if len(got) != len(want) {
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
