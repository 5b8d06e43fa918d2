package caddymodule

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestUnmarshalServerCORSAllowedOrigins(t *testing.T) {
	tests := []struct {
		name, input string
		want        []string
		err         string
	}{
		{"origins as arguments", "pgrest {\n server_cors_allowed_origins https://a.example http://b.example:8080\n}",
			[]string{"https://a.example", "http://b.example:8080"}, ""},
		{"PostgREST's comma-separated form", "pgrest {\n server_cors_allowed_origins \"http://example.com, http://example2.com\"\n}",
			[]string{"http://example.com", "http://example2.com"}, ""},
		{"no origin is refused", "pgrest {\n server_cors_allowed_origins\n}", nil, "expected at least one value"},
		{"given twice is refused", "pgrest {\n server_cors_allowed_origins https://a.example\n server_cors_allowed_origins https://b.example\n}",
			nil, "given more than once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Handler
			err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(h.ServerCORSAllowedOrigins, tt.want) {
				t.Fatalf("got %q, want %q", h.ServerCORSAllowedOrigins, tt.want)
			}
		})
	}
}

func TestValidateServerCORSAllowedOrigins(t *testing.T) {
	tests := []struct {
		origins []string
		want    string // "" means valid
	}{
		{nil, ""},
		{[]string{"https://app.example.com", "http://127.0.0.1:8080"}, ""},
		{[]string{"https://app.example.com", "null"}, `server_cors_allowed_origins: "null" may not be allowed`},
		{[]string{"*"}, "leave server_cors_allowed_origins out to allow every origin"},
		{[]string{""}, "empty origin"},
		{[]string{"app.example.com"}, `"app.example.com" is not an origin`},
		{[]string{"https://app.example.com/"}, "is not an origin"},
		{[]string{"https://app.example.com/path"}, "is not an origin"},
		{[]string{"https://app.example.com?"}, "is not an origin"},
		{[]string{"https://user@app.example.com"}, "is not an origin"},
	}
	for _, tt := range tests {
		h := validHandler()
		h.ServerCORSAllowedOrigins = tt.origins
		err := h.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: Validate: %v", tt.origins, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: Validate: %v; want an error containing %q", tt.origins, err, tt.want)
		}
	}
}

// The CORS rules on their own, without a database: which requests are
// answered as preflights and which headers the others get. The headers
// are PostgREST's (its CorsSpec and CORS documentation) word for word.
func TestServeCORS(t *testing.T) {
	const allMethods = "GET, POST, PATCH, PUT, DELETE, OPTIONS, HEAD"
	const exposed = "Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, Server, Transfer-Encoding, Range-Unit"
	restricted := []string{"http://example.com", "http://example2.com"}
	tests := []struct {
		name     string
		allowed  []string
		method   string
		headers  map[string]string
		answered bool
		want     map[string]string // "" means the header is absent
	}{
		{
			name: "PostgREST's preflight example", method: "OPTIONS",
			headers:  map[string]string{"Origin": "http://example.com", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "Foo,Bar"},
			answered: true,
			want: map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": allMethods,
				"Access-Control-Allow-Headers": "Authorization, Foo, Bar, Accept, Accept-Language, Content-Language",
				"Access-Control-Max-Age":       "86400", "Access-Control-Allow-Credentials": "", "Access-Control-Expose-Headers": "",
				// Every origin gets the same answer.
				"Vary": ""},
		},
		{
			name: "a browser's lowercase request headers are kept as sent", method: "OPTIONS",
			headers:  map[string]string{"Origin": "http://example.com", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "accept,authorization,content-type"},
			answered: true,
			want:     map[string]string{"Access-Control-Allow-Headers": "Authorization, accept, authorization, content-type, Accept-Language, Content-Language"},
		},
		{
			name: "a preflight without request headers gets no Allow-Headers", method: "OPTIONS",
			headers:  map[string]string{"Origin": "http://example.com", "Access-Control-Request-Method": "DELETE"},
			answered: true,
			want:     map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Headers": "", "Access-Control-Max-Age": "86400"},
		},
		{
			name: "an allowed origin is echoed with credentials", allowed: restricted, method: "OPTIONS",
			headers:  map[string]string{"Origin": "http://example2.com", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "Content-Type"},
			answered: true,
			want: map[string]string{"Access-Control-Allow-Origin": "http://example2.com", "Access-Control-Allow-Credentials": "true",
				"Access-Control-Allow-Methods": allMethods, "Access-Control-Allow-Headers": "Authorization, Content-Type, Accept, Accept-Language, Content-Language",
				"Vary": "Origin"},
		},
		{
			name: "a preflight from an origin not listed is left to pgrest's OPTIONS", allowed: restricted, method: "OPTIONS",
			headers: map[string]string{"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"},
			want:    map[string]string{"Access-Control-Allow-Origin": "", "Access-Control-Allow-Methods": "", "Vary": "Origin"},
		},
		{
			name: "an allowed origin's OPTIONS that is not a preflight gets its origin, not pgrest's *", allowed: restricted, method: "OPTIONS",
			headers: map[string]string{"Origin": "http://example.com"},
			want: map[string]string{"Access-Control-Allow-Origin": "http://example.com", "Access-Control-Allow-Credentials": "true",
				"Access-Control-Expose-Headers": exposed, "Access-Control-Allow-Methods": "", "Vary": "Origin"},
		},
		{
			name: "origins compare exactly", allowed: restricted, method: "GET",
			headers: map[string]string{"Origin": "HTTP://EXAMPLE.COM"},
			want:    map[string]string{"Access-Control-Allow-Origin": "", "Vary": "Origin"},
		},
		{
			name: "an OPTIONS without Access-Control-Request-Method is not a preflight", method: "OPTIONS",
			headers: map[string]string{"Origin": "http://example.com"},
			want:    map[string]string{"Access-Control-Allow-Origin": "", "Access-Control-Allow-Methods": ""},
		},
		{
			name: "a preflight for a method pgrest does not take is not answered", method: "OPTIONS",
			headers: map[string]string{"Origin": "http://example.com", "Access-Control-Request-Method": "TRACE"},
			want:    map[string]string{"Access-Control-Allow-Origin": "", "Access-Control-Allow-Methods": ""},
		},
		{
			name: "methods compare case-sensitively, as in wai-cors", method: "OPTIONS",
			headers: map[string]string{"Origin": "http://example.com", "Access-Control-Request-Method": "post"},
			want:    map[string]string{"Access-Control-Allow-Origin": ""},
		},
		{
			name: "request headers that are not header names fail the preflight", method: "OPTIONS",
			headers: map[string]string{"Origin": "http://example.com", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-a, bad name"},
			want:    map[string]string{"Access-Control-Allow-Origin": "", "Access-Control-Allow-Headers": ""},
		},
		{
			name: "an actual request gets the origin and the exposed headers", method: "GET",
			headers: map[string]string{"Origin": "http://example.com"},
			want: map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": exposed,
				"Access-Control-Allow-Credentials": "", "Access-Control-Allow-Methods": "", "Access-Control-Max-Age": ""},
		},
		{
			name: "an actual request from an allowed origin gets credentials", allowed: restricted, method: "PATCH",
			headers: map[string]string{"Origin": "http://example.com"},
			want: map[string]string{"Access-Control-Allow-Origin": "http://example.com", "Access-Control-Allow-Credentials": "true",
				"Access-Control-Expose-Headers": exposed, "Vary": "Origin"},
		},
		{
			name: "a POST carrying Access-Control-Request-Method is still an actual request", method: "POST",
			headers: map[string]string{"Origin": "http://example.com", "Access-Control-Request-Method": "POST"},
			want:    map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": ""},
		},
		{
			name: "a request without Origin is not CORS", method: "GET",
			want: map[string]string{"Access-Control-Allow-Origin": "", "Access-Control-Expose-Headers": "", "Vary": ""},
		},
		{
			name: "with an allow-list, a request without Origin still varies on it", allowed: restricted, method: "GET",
			want: map[string]string{"Access-Control-Allow-Origin": "", "Vary": "Origin"},
		},
		{
			name: "a WebSocket handshake is not CORS", method: "GET",
			headers: map[string]string{"Origin": "http://example.com", "Upgrade": "websocket"},
			want:    map[string]string{"Access-Control-Allow-Origin": ""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "/items", nil)
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			if got := serveCORS(w, r, tt.allowed); got != tt.answered {
				t.Fatalf("answered = %v, want %v", got, tt.answered)
			}
			if tt.answered && (w.Code != http.StatusOK || w.Body.Len() != 0) {
				t.Errorf("preflight answered %d with %d body bytes, want 200 and none", w.Code, w.Body.Len())
			}
			for name, want := range tt.want {
				if got := w.Header().Get(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}
