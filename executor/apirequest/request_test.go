package apirequest

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

func TestRoute(t *testing.T) {
	tests := []struct {
		name, method, path string
		wantTarget         Target
		wantAction         Action
		wantName, wantCode string
	}{
		{"GET on a table reads it", "GET", "/items", TargetRelation, ActionRead, "items", ""},
		{"HEAD on a table reads it", "HEAD", "/items", TargetRelation, ActionRead, "items", ""},
		{"POST on a table creates", "POST", "/items", TargetRelation, ActionCreate, "items", ""},
		{"PATCH on a table updates", "PATCH", "/items", TargetRelation, ActionUpdate, "items", ""},
		{"PUT on a table upserts", "PUT", "/items", TargetRelation, ActionUpsert, "items", ""},
		{"DELETE on a table deletes", "DELETE", "/items", TargetRelation, ActionDelete, "items", ""},
		{"GET on the root inspects", "GET", "/", TargetRoot, ActionInspect, "", ""},
		{"POST on a function invokes it", "POST", "/rpc/f", TargetFunction, ActionInvoke, "f", ""},
		{"GET on a function invokes it", "GET", "/rpc/f", TargetFunction, ActionInvoke, "f", ""},
		{"OPTIONS anywhere is info", "OPTIONS", "/items", TargetRelation, ActionInfo, "items", ""},
		{"PUT on a function is PGRST101", "PUT", "/rpc/f", 0, 0, "", "PGRST101"},
		{"PATCH on a function is PGRST101", "PATCH", "/rpc/f", 0, 0, "", "PGRST101"},
		{"DELETE on a function is PGRST101", "DELETE", "/rpc/f", 0, 0, "", "PGRST101"},
		{"an unknown verb on a table is PGRST117", "TRACE", "/items", 0, 0, "", "PGRST117"},
		{"an unknown verb on a function is PGRST101", "PROPFIND", "/rpc/f", 0, 0, "", "PGRST101"},
		{"POST on the root is PGRST117", "POST", "/", 0, 0, "", "PGRST117"},
		{"three segments are PGRST125", "GET", "/a/b/c", 0, 0, "", "PGRST125"},
		{"two segments not under rpc are PGRST125", "GET", "/a/b", 0, 0, "", "PGRST125"},
		{"rpc without a name is PGRST125", "GET", "/rpc/", 0, 0, "", "PGRST125"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "http://x"+tt.path, nil)
			req, err := Parse(r, []string{"api"}, 1<<20)
			if tt.wantCode != "" {
				if err == nil || err.Code != tt.wantCode {
					t.Fatalf("got %v, want %s", err, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if req.Target != tt.wantTarget || req.Action != tt.wantAction || req.Name != tt.wantName {
				t.Errorf("got target %d action %d name %q", req.Target, req.Action, req.Name)
			}
		})
	}
}

func TestProfiles(t *testing.T) {
	schemas := []string{"api", "v2"}
	t.Run("no profile header picks the first schema", func(t *testing.T) {
		req, err := Parse(httptest.NewRequest("GET", "/items", nil), schemas, 1<<20)
		if err != nil || req.Schema != "api" || req.ProfileGiven {
			t.Fatalf("got %+v %v", req, err)
		}
	})
	t.Run("Accept-Profile picks a schema for reads", func(t *testing.T) {
		r := httptest.NewRequest("GET", "/items", nil)
		r.Header.Set("Accept-Profile", "v2")
		req, err := Parse(r, schemas, 1<<20)
		if err != nil || req.Schema != "v2" {
			t.Fatalf("got %+v %v", req, err)
		}
	})
	t.Run("Content-Profile picks a schema for writes", func(t *testing.T) {
		r := httptest.NewRequest("POST", "/rpc/f", strings.NewReader("{}"))
		r.Header.Set("Content-Profile", "v2")
		req, err := Parse(r, schemas, 1<<20)
		if err != nil || req.Schema != "v2" {
			t.Fatalf("got %+v %v", req, err)
		}
	})
	t.Run("an unexposed schema is PGRST106", func(t *testing.T) {
		r := httptest.NewRequest("GET", "/items", nil)
		r.Header.Set("Accept-Profile", "private")
		_, err := Parse(r, schemas, 1<<20)
		if err == nil || err.Code != "PGRST106" || err.Status != http.StatusNotAcceptable {
			t.Fatalf("got %v", err)
		}
	})
}

func TestPreferences(t *testing.T) {
	t.Run("several headers and comma lists are read", func(t *testing.T) {
		p, err := ParsePreferences([]string{"return=representation, count=exact", "tx=rollback", "max-affected=5"})
		if err != nil || p.Return != "representation" || p.Count != "exact" || p.Tx != "rollback" || p.MaxAffected == nil || *p.MaxAffected != 5 {
			t.Fatalf("got %+v %v", p, err)
		}
	})
	t.Run("the first occurrence wins", func(t *testing.T) {
		p, _ := ParsePreferences([]string{"return=minimal, return=representation"})
		if p.Return != "minimal" {
			t.Fatalf("got %q", p.Return)
		}
	})
	t.Run("unknown preferences are ignored when lenient", func(t *testing.T) {
		p, err := ParsePreferences([]string{"foo=bar, return=wrong"})
		if err != nil || len(p.Invalid) != 2 || p.Return != "" {
			t.Fatalf("got %+v %v", p, err)
		}
	})
	t.Run("unknown preferences are PGRST122 when strict", func(t *testing.T) {
		_, err := ParsePreferences([]string{"handling=strict, foo=bar"})
		if err == nil || err.Code != "PGRST122" || err.Details != "Invalid preferences: foo=bar" {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a negative max-affected is invalid", func(t *testing.T) {
		p, _ := ParsePreferences([]string{"max-affected=-1"})
		if p.MaxAffected != nil || len(p.Invalid) != 1 {
			t.Fatalf("got %+v", p)
		}
	})
	t.Run("every recognised preference is read", func(t *testing.T) {
		p, err := ParsePreferences([]string{"resolution=merge-duplicates, missing=default, handling=lenient",
			"timezone=Europe/Paris, count=planned"})
		want := Preferences{Resolution: "merge-duplicates", Missing: "default", Handling: "lenient",
			Timezone: "Europe/Paris", Count: "planned"}
		if err != nil || !reflect.DeepEqual(p, want) {
			t.Fatalf("got %+v %v, want %+v", p, err, want)
		}
	})
	t.Run("params=single-object, removed in PostgREST 13, is not understood", func(t *testing.T) {
		p, err := ParsePreferences([]string{"params=single-object"})
		if err != nil || !reflect.DeepEqual(p.Invalid, []string{"params=single-object"}) {
			t.Fatalf("got %+v %v", p, err)
		}
		if _, err := ParsePreferences([]string{"handling=strict, params=single-object"}); err == nil || err.Code != "PGRST122" {
			t.Fatalf("strict: got %v, want PGRST122", err)
		}
	})
	t.Run("a timezone is taken as written, name or offset, for PostgreSQL to check", func(t *testing.T) {
		for _, tz := range []string{"America/Los_Angeles", "+05:30", "-4", "05:30:15", "Invalid/Timezone"} {
			p, err := ParsePreferences([]string{"handling=strict, timezone=" + tz})
			if err != nil || p.Timezone != tz || len(p.Invalid) != 0 {
				t.Errorf("timezone=%s: got %+v %v", tz, p, err)
			}
		}
	})
	t.Run("strict handling refuses what it does not understand beside a timezone", func(t *testing.T) {
		_, err := ParsePreferences([]string{"handling=strict, timezone=UTC, foo"})
		if err == nil || err.Code != "PGRST122" || err.Details != "Invalid preferences: foo" {
			t.Fatalf("got %+v", err)
		}
	})
	t.Run("values outside a preference's set are invalid", func(t *testing.T) {
		tokens := []string{"return=all", "count=some", "resolution=merge", "missing=zero", "handling=loose",
			"tx=abort", "params=multiple-objects", "timezone=", "max-affected=many", "max-affected"}
		p, err := ParsePreferences(tokens)
		if err != nil || !reflect.DeepEqual(p, Preferences{Invalid: tokens}) {
			t.Fatalf("got %+v %v", p, err)
		}
	})
	t.Run("a repeat of a preference already read is dropped, valid or not", func(t *testing.T) {
		p, err := ParsePreferences([]string{"handling=strict, tx=commit", "tx=bogus, handling=lenient"})
		if err != nil || p.Handling != "strict" || p.Tx != "commit" || p.Invalid != nil {
			t.Fatalf("got %+v %v", p, err)
		}
	})
	t.Run("a repeat after an invalid first occurrence is read", func(t *testing.T) {
		p, _ := ParsePreferences([]string{"tx=bogus, tx=rollback"})
		if p.Tx != "rollback" || !reflect.DeepEqual(p.Invalid, []string{"tx=bogus"}) {
			t.Fatalf("got %+v", p)
		}
	})
	t.Run("spaces around names, values and commas are dropped", func(t *testing.T) {
		p, err := ParsePreferences([]string{" return = minimal ,, count=exact "})
		if err != nil || p.Return != "minimal" || p.Count != "exact" || p.Invalid != nil {
			t.Fatalf("got %+v %v", p, err)
		}
	})
	t.Run("Parse refuses what strict handling refuses", func(t *testing.T) {
		r := httptest.NewRequest("GET", "/items", nil)
		r.Header.Add("Prefer", "handling=strict")
		r.Header.Add("Prefer", "return=sometimes")
		_, err := Parse(r, []string{"api"}, 1<<20)
		if err == nil || err.Code != "PGRST122" || err.Details != "Invalid preferences: return=sometimes" {
			t.Fatalf("got %v", err)
		}
	})
}

// failingReader fails every read, as a client that drops the connection
// mid-body does.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestBody(t *testing.T) {
	t.Run("a write reads its body and media type, lower case, without parameters", func(t *testing.T) {
		r := httptest.NewRequest("POST", "/items", strings.NewReader(`{"a":1}`))
		r.Header.Set("Content-Type", "Application/JSON; charset=utf-8")
		req, err := Parse(r, []string{"api"}, 1<<20)
		if err != nil || req.ContentType != "application/json" || string(req.Body) != `{"a":1}` {
			t.Fatalf("got %+v %v", req, err)
		}
	})
	t.Run("a write without Content-Type is JSON", func(t *testing.T) {
		req, err := Parse(httptest.NewRequest("PATCH", "/items", strings.NewReader("{}")), []string{"api"}, 1<<20)
		if err != nil || req.ContentType != "application/json" {
			t.Fatalf("got %+v %v", req, err)
		}
	})
	t.Run("a write without a body has none", func(t *testing.T) {
		r := &http.Request{Method: "POST", URL: &url.URL{Path: "/items"}, Header: http.Header{}}
		req, err := Parse(r, []string{"api"}, 1<<20)
		if err != nil || req.Body != nil || req.ContentType != "application/json" {
			t.Fatalf("got %+v %v", req, err)
		}
	})
	t.Run("a read takes no body", func(t *testing.T) {
		req, err := Parse(httptest.NewRequest("GET", "/rpc/f", strings.NewReader("{}")), []string{"api"}, 1<<20)
		if err != nil || req.Body != nil || req.ContentType != "" {
			t.Fatalf("got %+v %v", req, err)
		}
	})
	t.Run("a malformed Content-Type is PGRST107 naming it", func(t *testing.T) {
		r := httptest.NewRequest("POST", "/items", strings.NewReader("{}"))
		r.Header.Set("Content-Type", "json;;")
		_, err := Parse(r, []string{"api"}, 1<<20)
		if err == nil || err.Code != "PGRST107" || err.Status != http.StatusUnsupportedMediaType ||
			err.Message != "None of these media types are available: json;;" {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a body that cannot be read is PGRST102", func(t *testing.T) {
		r := httptest.NewRequest("POST", "/items", failingReader{})
		_, err := Parse(r, []string{"api"}, 1<<20)
		if err == nil || err.Code != "PGRST102" || err.Status != http.StatusBadRequest ||
			err.Message != "Error reading the request body: connection reset" {
			t.Fatalf("got %v", err)
		}
	})
}

// chunked hides a reader's length, as a chunked request body does.
type chunked struct{ io.Reader }

func TestBodyLimit(t *testing.T) {
	const limit = 16
	post := func(body io.Reader, contentLength int64) *http.Request {
		r := httptest.NewRequest("POST", "/items", body)
		r.ContentLength = contentLength
		return r
	}
	expect413 := func(t *testing.T, err *apierr.Error) {
		t.Helper()
		if err == nil || err.Code != "PGRST190" || err.Status != http.StatusRequestEntityTooLarge ||
			err.Details != "The request body is larger than the limit of 16 bytes." {
			t.Fatalf("got %v", err)
		}
	}
	t.Run("a body of exactly the limit is read whole", func(t *testing.T) {
		body := strings.Repeat("x", limit)
		for _, r := range []*http.Request{post(strings.NewReader(body), limit), post(chunked{strings.NewReader(body)}, -1)} {
			req, err := Parse(r, []string{"api"}, limit)
			if err != nil || string(req.Body) != body {
				t.Fatalf("got %+v %v", req, err)
			}
		}
	})
	t.Run("a declared length over the limit is 413 before a byte is read", func(t *testing.T) {
		_, err := Parse(post(failingReader{}, limit+1), []string{"api"}, limit)
		expect413(t, err)
	})
	t.Run("a body of unknown length is 413 one byte past the limit", func(t *testing.T) {
		body := &countingReader{r: strings.NewReader(strings.Repeat("x", 10*limit))}
		_, err := Parse(post(chunked{body}, -1), []string{"api"}, limit)
		expect413(t, err)
		if body.n > limit+1 {
			t.Errorf("read %d bytes, want at most %d", body.n, limit+1)
		}
	})
	t.Run("a body cut off by http.MaxBytesReader is 413 with that reader's limit", func(t *testing.T) {
		r := post(chunked{strings.NewReader(strings.Repeat("x", 100))}, -1)
		r.Body = http.MaxBytesReader(httptest.NewRecorder(), r.Body, limit)
		_, err := Parse(r, []string{"api"}, 1<<20)
		expect413(t, err)
	})
	t.Run("a declared length is the buffer's size: nothing is copied to grow it", func(t *testing.T) {
		body := strings.Repeat("y", 10)
		req, err := Parse(post(strings.NewReader(body), 10), []string{"api"}, limit)
		if err != nil || string(req.Body) != body || cap(req.Body) != 11 {
			t.Fatalf("got %q (cap %d) %v", req.Body, cap(req.Body), err)
		}
	})
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
