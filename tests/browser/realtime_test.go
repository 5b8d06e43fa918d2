package browser

import (
	"encoding/json"
	"net/url"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// TestBrowserRealtime runs supabase-js's realtime in Chromium against
// pgrest's socket on another origin: a broadcast from one client of the
// page to the other, acknowledged, and a presence the other sees join.
func TestBrowserRealtime(t *testing.T) {
	page := pageServer(t)
	site := startPgrest(t, "realtime_enabled true")
	q := url.Values{
		"site":  {site},
		"anon":  {pgresttest.Token(t, jwtSecret, jwt.MapClaims{"role": "web_anon"})},
		"topic": {"browser-room"},
	}
	var got map[string]json.RawMessage
	visitReported(t, page, page.URL+"/realtime.html?"+q.Encode(), &got)
	want := map[string]string{
		"subscribeA": `{"status":"SUBSCRIBED","err":null}`,
		"subscribeB": `{"status":"SUBSCRIBED","err":null}`,
		"send":       `"ok"`,
		"broadcast":  `{"from":"page"}`,
		"track":      `"ok"`,
		"presence":   `{"page":true}`,
	}
	for k, v := range want {
		if !jsonEqual(got[k], v) {
			t.Errorf("%s: got %s, want %s", k, got[k], v)
		}
	}
	if got["thrown"] != nil {
		t.Errorf("the page threw %s", got["thrown"])
	}
}
