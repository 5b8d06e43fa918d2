package executor

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// headersJSONByMap is request.headers as a map and json.Marshal make it:
// what headersJSON must equal, whatever the names.
func headersJSONByMap(r *http.Request) map[string]string {
	m := map[string]string{}
	for k, vs := range r.Header {
		name := strings.ToLower(k)
		if name == "cookie" || name == "host" {
			continue
		}
		m[name] = strings.Join(vs, ", ")
	}
	if r.Host != "" {
		m["host"] = r.Host
	}
	return m
}

func TestHeadersJSONLowerCasesEveryName(t *testing.T) {
	r, err := http.NewRequest("GET", "http://api.example.com/items", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Names as a proxy or a test may set them, bypassing canonicalisation.
	r.Header = http.Header{
		"X-Mixed-Case": {"1"},
		"x-lower":      {"2"},
		"X-ÜBER":       {"3"},
		"X-\u212Aey":   {"kelvin"}, // the Kelvin sign: ToLower makes it "k"
		"COOKIE":       {"a=b"},
		"Host":         {"spoofed"},
		"X-Quote\"":    {"q"},
		"Accept":       {"application/json", "text/csv"},
	}
	var got map[string]string
	if err := json.Unmarshal(headersJSON(r), &got); err != nil {
		t.Fatalf("request.headers is not JSON: %v: %s", err, headersJSON(r))
	}
	want := headersJSONByMap(r)
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%q = %q, want %q", k, got[k], v)
		}
	}
}

func TestHeadersJSONSizeFitsWhatNeedsNoEscape(t *testing.T) {
	r, err := http.NewRequest("GET", "http://api.example.com/items", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header = http.Header{
		"Authorization": {"Bearer " + strings.Repeat("x", 300)},
		"Accept":        {"application/json", "text/csv"},
		"User-Agent":    {"pgrest-test"},
		"Cookie":        {"a=b"},
	}
	got := headersJSON(r)
	if size := headersJSONSize(r); len(got) > size || cap(got) != size {
		t.Errorf("request.headers is %d bytes in a buffer of %d, sized %d: it grew", len(got), cap(got), size)
	}
}
