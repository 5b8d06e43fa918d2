package executor

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
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

func TestAppSettingsObject(t *testing.T) {
	var got map[string]string
	if err := json.Unmarshal(appSettingsObject([]Setting{{"app.a", "1"}, {"app.b", `"x"`}}), &got); err != nil {
		t.Fatal(err)
	}
	if got["app.a"] != "1" || got["app.b"] != `"x"` || len(got) != 2 {
		t.Errorf("got %v", got)
	}
	if string(appSettingsObject(nil)) != "{}" {
		t.Errorf("no settings must be an empty object, got %s", appSettingsObject(nil))
	}
}
