package browser

import (
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// TestBrowserRealtime runs supabase-js's realtime in Chromium against
// pgrest's socket on another origin: a broadcast from one client of the
// page to the other, acknowledged, and a presence the other sees join;
// then two users, each subscribed to postgres_changes of a table under
// row-level security, insert through the REST API in turn, and each
// hears of exactly their own rows.
func TestBrowserRealtime(t *testing.T) {
	page := pageServer(t)
	site := startPgrest(t, "realtime_enabled true", "realtime_publication browser_realtime", "realtime_node_name browser")
	userToken := func(sub string) string {
		return pgresttest.Token(t, jwtSecret, jwt.MapClaims{"role": "webuser", "sub": sub, "exp": time.Now().Add(time.Hour).Unix()})
	}
	q := url.Values{
		"site":  {site},
		"anon":  {pgresttest.Token(t, jwtSecret, jwt.MapClaims{"role": "web_anon"})},
		"topic": {"browser-room"},
		"user1": {userToken("page-user-1")},
		"user2": {userToken("page-user-2")},
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
		"changes1":   `["from-1","from-1b"]`,
		"changes2":   `["from-2","from-2b"]`,
	}
	t.Logf("page: %s", mustJSON(got))
	for k, v := range want {
		if !jsonEqual(got[k], v) {
			t.Errorf("%s: got %s, want %s", k, got[k], v)
		}
	}
	if got["thrown"] != nil {
		t.Errorf("the page threw %s", got["thrown"])
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }
