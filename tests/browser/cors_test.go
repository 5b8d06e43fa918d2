package browser

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// startPgrest serves pgrest under /rest/v1, as Supabase lays it out, with
// the subdirectives lines added; it returns the site's URL.
func startPgrest(t *testing.T, lines ...string) string {
	t.Helper()
	dirs := pgresttest.Directives(map[string]string{
		"db_uri":       pgresttest.Quote(authDSN),
		"db_schemas":   "api",
		"db_anon_role": "web_anon",
		"jwt_secret":   jwtSecret,
	}, lines...)
	s, _, err := pgresttest.Serve(dirs, pgresttest.Options{Mount: "/rest/v1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pgresttest.Stop(); err != nil {
			t.Errorf("stopping Caddy: %v", err)
		}
	})
	waitReady(t, s)
	return s.URL
}

// waitReady waits for the schema cache: until then pgrest answers 503.
func waitReady(t *testing.T, s *pgresttest.Server) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		res, err := s.Try(nil, "GET", "/rest/v1/browser_items?limit=1", "")
		if err == nil && res.Status == 200 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pgrest not ready: %v %+v", err, res)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// pageURL is the test page on pageOrigin, calling pgrest at site with a
// user token and an anon key, inserting a row named slug.
func pageURL(t *testing.T, pageOrigin, site, slug string) string {
	t.Helper()
	q := url.Values{
		"site":  {site},
		"rest":  {site + "/rest/v1"},
		"token": {pgresttest.Token(t, jwtSecret, jwt.MapClaims{"role": "webuser"})},
		"anon":  {pgresttest.Token(t, jwtSecret, jwt.MapClaims{"role": "web_anon"})},
		"slug":  {slug},
	}
	return pageOrigin + "/calls.html?" + q.Encode()
}

func rowsWithSlug(t *testing.T, slug string) int64 {
	t.Helper()
	return pgresttest.SQLInt(t, superDSN, "select count(*) from api.browser_items where slug = $1", slug)
}

// expectCallsSucceed checks every call of the page got pgrest's answer.
func expectCallsSucceed(t *testing.T, results map[string]callResult, slug string, rows int64) {
	t.Helper()
	expect := func(name string, status int, data string) {
		t.Helper()
		r, ok := results[name]
		switch {
		case !ok:
			t.Errorf("%s: no result", name)
		case r.Thrown != "":
			t.Errorf("%s threw %s", name, r.Thrown)
		case r.Status != status:
			t.Errorf("%s: status %d, error %+v; want %d", name, r.Status, r.Error, status)
		case data != "" && !jsonEqual(r.Data, data):
			t.Errorf("%s: data %s, want %s", name, r.Data, data)
		}
	}
	expect("count", 200, "")
	// The count is read from Content-Range: only an exposed header is.
	if c := results["count"].Count; c == nil || int64(*c) != rows {
		t.Errorf("count: %v, want %d (is Content-Range exposed?)", c, rows)
	}
	expect("insert", 201, fmt.Sprintf(`{"slug":%q,"name":"From the browser"}`, slug))
	expect("whoami", 200, `"webuser"`)
	expect("missing", 404, "")
	if e := results["missing"].Error; e == nil || e.Code != "PGRST205" {
		t.Errorf("missing: error %+v, want code PGRST205", e)
	}
	expect("supabaseRead", 200, `[{"name":"Two"}]`)
	expect("supabaseWhoami", 200, `"web_anon"`)
	if n := rowsWithSlug(t, slug); n != 1 {
		t.Errorf("%d rows with slug %s, want the page's 1", n, slug)
	}
}

func jsonEqual(got json.RawMessage, want string) bool {
	var g, w any
	if json.Unmarshal(got, &g) != nil || json.Unmarshal([]byte(want), &w) != nil {
		return false
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return string(gb) == string(wb)
}

// A page on another origin reads, writes with a token (which takes a
// preflight), calls functions and gets errors, with postgrest-js and with
// supabase-js's createClient, as pgrest answers every origin by default.
func TestBrowserCallsFromAnotherOrigin(t *testing.T) {
	browser := chromium(t)
	t.Logf("browser: %s", browser)
	site := startPgrest(t)
	page := pageServer(t)
	if page.URL == site {
		t.Fatal("the page and pgrest share an origin")
	}
	slug := fmt.Sprintf("any-origin-%d", time.Now().UnixNano())
	rows := pgresttest.SQLInt(t, superDSN, "select count(*) from api.browser_items")
	expectCallsSucceed(t, visit(t, pageURL(t, page.URL, site, slug)), slug, rows)
}

// With server_cors_allowed_origins, a listed origin's page works as
// before; a page on any other origin gets nothing: the browser refuses
// every response and never sends the write its preflight was refused for.
func TestBrowserAllowedOrigins(t *testing.T) {
	chromium(t)
	listed, other := pageServer(t), pageServer(t)
	site := startPgrest(t, fmt.Sprintf("server_cors_allowed_origins `https://app.example.com, %s`", listed.URL))

	t.Run("a listed origin", func(t *testing.T) {
		slug := fmt.Sprintf("listed-%d", time.Now().UnixNano())
		rows := pgresttest.SQLInt(t, superDSN, "select count(*) from api.browser_items")
		expectCallsSucceed(t, visit(t, pageURL(t, listed.URL, site, slug)), slug, rows)
	})
	t.Run("an origin not listed", func(t *testing.T) {
		slug := fmt.Sprintf("unlisted-%d", time.Now().UnixNano())
		results := visit(t, pageURL(t, other.URL, site, slug))
		for _, name := range []string{"count", "insert", "whoami", "missing", "supabaseRead", "supabaseWhoami"} {
			r, ok := results[name]
			switch {
			case !ok:
				t.Errorf("%s: no result", name)
			case r.Status != 0 || r.Error == nil || !strings.Contains(r.Error.Message, "Failed to fetch"):
				t.Errorf("%s: status %d, data %s, error %+v; want the browser's fetch failure", name, r.Status, r.Data, r.Error)
			}
		}
		if n := rowsWithSlug(t, slug); n != 0 {
			t.Errorf("%d rows with slug %s: the write was sent though its preflight was refused", n, slug)
		}
	})
}
