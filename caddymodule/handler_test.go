package caddymodule

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/executor"
	"github.com/pgrest/caddy-pgrest/executor/dbpool"
)

// testDBURI names a port nothing listens on: nothing here needs a database.
// A pool does not connect until it is used, and the schema cache load that
// Provision starts retries in the background until the test cleans up.
const testDBURI = "postgres://authenticator:pw@127.0.0.1:1/app"

// testSecret is a passphrase long enough for HMAC keys.
const testSecret = "a-test-secret-that-is-at-least-32-characters"

// validHandler is a configuration that passes Validate, defaults applied.
func validHandler() Handler {
	h := Handler{DBURI: testDBURI, DBSchemas: []string{"api"}}
	h.applyDefaults()
	return h
}

func TestDefaults(t *testing.T) {
	h := Handler{}
	h.applyDefaults()
	want := Handler{
		DBExtraSearchPath:        []string{"public"},
		DBPool:                   10,
		DBPoolAcquisitionTimeout: caddy.Duration(10 * time.Second),
		DBPreparedStatements:     new(true),
		DBTxEnd:                  "commit",
		DBChannel:                "pgrst",
		DBChannelEnabled:         new(true),
		JWTRoleClaimKey:          "$.role",
		JWTCacheMaxEntries:       new(1000),
		DBLegacyClaims:           "auto",
		OpenAPIMode:              "follow-privileges",
		MaxBodySize:              10 << 20,
		Settings: Settings{
			ClientErrorVerbosity:    "verbose",
			DBConfig:                new(true),
			DBPoolMaxLifetime:       caddy.Duration(30 * time.Minute),
			DBPoolMaxIdletime:       caddy.Duration(30 * time.Second),
			DBPoolAutomaticRecovery: new(true),
			URLUseLegacyTargetNames: new(true),
		},
		RateLimitSettings: RateLimitSettings{RateLimitRedisFailure: "open"},
		RealtimeSettings: RealtimeSettings{
			RealtimePath:           "/realtime/v1/websocket",
			RealtimeMaxMessageSize: 1 << 20,
			RealtimeQueueSize:      1024,
			RealtimeMaxChannels:    100,
			RealtimeResumeWindow:   caddy.Duration(30 * time.Second),
		},
	}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("defaults are\n%+v\nwant\n%+v", h, want)
	}

	t.Run("explicit false and zero values survive the defaults", func(t *testing.T) {
		h := Handler{
			DBPreparedStatements: new(false),
			DBChannelEnabled:     new(false),
			JWTCacheMaxEntries:   new(0),
			DBExtraSearchPath:    []string{},
		}
		h.applyDefaults()
		if *h.DBPreparedStatements || *h.DBChannelEnabled || *h.JWTCacheMaxEntries != 0 || len(h.DBExtraSearchPath) != 0 {
			t.Errorf("defaults overrode explicit values: %+v", h)
		}
	})
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Handler)
		want   string // "" means valid
	}{
		{"the minimal configuration is valid", func(h *Handler) {}, ""},
		{"db_uri is required", func(h *Handler) { h.DBURI = "" }, "db_uri: required"},
		{"db_uri of blanks is refused", func(h *Handler) { h.DBURI = "  " }, "db_uri: required"},
		{"db_schemas needs one schema", func(h *Handler) { h.DBSchemas = nil }, "db_schemas: at least one"},
		{"db_schemas refuses an empty name", func(h *Handler) { h.DBSchemas = []string{"api", ""} }, "db_schemas: name 2 is empty"},
		{"db_schemas refuses a repeated name", func(h *Handler) { h.DBSchemas = []string{"api", "api"} }, `db_schemas: "api" is listed twice`},
		{"db_schemas refuses pg_catalog, as PostgREST v16", func(h *Handler) { h.DBSchemas = []string{"pg_catalog"} }, "db_schemas does not allow schema: 'pg_catalog'"},
		{"db_schemas refuses information_schema among others", func(h *Handler) { h.DBSchemas = []string{"api", "information_schema"} },
			"db_schemas does not allow schema: 'information_schema'"},
		{"db_schemas names pg_catalog first, as PostgREST checks it first", func(h *Handler) { h.DBSchemas = []string{"information_schema", "pg_catalog"} },
			"db_schemas does not allow schema: 'pg_catalog'"},
		{"db_schemas takes another case as another schema", func(h *Handler) { h.DBSchemas = []string{"PG_CATALOG"} }, ""},
		{"db_extra_search_path refuses an empty name", func(h *Handler) { h.DBExtraSearchPath = []string{""} }, "db_extra_search_path: name 1 is empty"},
		{"db_extra_search_path may be empty", func(h *Handler) { h.DBExtraSearchPath = []string{} }, ""},
		{"db_plan_analyze_roles refuses an empty name", func(h *Handler) { h.DBPlanAnalyzeRoles = []string{"admin", " "} }, "db_plan_analyze_roles: name 2 is empty"},
		{"db_hoisted_tx_settings refuses an empty name", func(h *Handler) { h.DBHoistedTxSettings = []string{"work_mem", ""} }, "db_hoisted_tx_settings: name 2 is empty"},
		{"db_replicas refuses an empty connection string", func(h *Handler) { h.DBReplicas = []string{" "} }, "db_replicas: connection string 1 is empty"},
		{"db_plan_analyze_roles refuses a repeated name", func(h *Handler) { h.DBPlanAnalyzeRoles = []string{"admin", "admin"} }, `db_plan_analyze_roles: "admin" is listed twice`},
		{"db_anon_role refuses none, which runs as the authenticator", func(h *Handler) { h.DBAnonRole = "none" }, `db_anon_role: "none" would run anonymous requests as the authenticator`},
		{"db_anon_role accepts NONE, a role of that name", func(h *Handler) { h.DBAnonRole = "NONE" }, ""},
		{"db_max_rows refuses a negative cap", func(h *Handler) { h.DBMaxRows = -1 }, "db_max_rows: must be 0 (no cap) or more, got -1"},
		{"db_pool refuses 0", func(h *Handler) { h.DBPool = 0 }, "db_pool: must be between 1 and"},
		{"db_pool refuses a negative size", func(h *Handler) { h.DBPool = -3 }, "got -3"},
		{"db_pool refuses more than pgx can open", func(h *Handler) { n := int64(math.MaxInt32); h.DBPool = int(n + 1) }, "db_pool: must be between 1 and"},
		{"db_pool_acquisition_timeout refuses 0", func(h *Handler) { h.DBPoolAcquisitionTimeout = 0 }, "db_pool_acquisition_timeout: must be more than 0"},
		{"db_pool_acquisition_timeout refuses negatives", func(h *Handler) { h.DBPoolAcquisitionTimeout = -1 }, "db_pool_acquisition_timeout: must be more than 0"},
		{"db_tx_end refuses other modes", func(h *Handler) { h.DBTxEnd = "x" },
			`db_tx_end: must be one of commit, commit-allow-override, rollback, rollback-allow-override, got "x"`},
		{"db_tx_end accepts rollback-allow-override", func(h *Handler) { h.DBTxEnd = "rollback-allow-override" }, ""},
		{"jwt_cache_max_entries refuses negatives", func(h *Handler) { h.JWTCacheMaxEntries = new(-1) }, "jwt_cache_max_entries: must be 0"},
		{"db_legacy_claims refuses other modes", func(h *Handler) { h.DBLegacyClaims = "yes" },
			`db_legacy_claims: must be one of auto, true, false, got "yes"`},
		{"db_legacy_claims accepts false", func(h *Handler) { h.DBLegacyClaims = "false" }, ""},
		{"openapi_mode refuses other modes", func(h *Handler) { h.OpenAPIMode = "on" },
			`openapi_mode: must be one of follow-privileges, ignore-privileges, disabled, got "on"`},
		{"openapi_mode accepts disabled", func(h *Handler) { h.OpenAPIMode = "disabled" }, ""},
		{"openapi_server_proxy_uri needs a scheme", func(h *Handler) { h.OpenAPIServerProxyURI = "api.example.com" }, "openapi_server_proxy_uri: must be an absolute http or https URL"},
		{"openapi_server_proxy_uri needs http or https", func(h *Handler) { h.OpenAPIServerProxyURI = "ftp://api.example.com" }, "openapi_server_proxy_uri"},
		{"openapi_server_proxy_uri needs a host", func(h *Handler) { h.OpenAPIServerProxyURI = "https:///rest/v1" }, "openapi_server_proxy_uri"},
		{"openapi_server_proxy_uri must parse", func(h *Handler) { h.OpenAPIServerProxyURI = "http://[::1" }, "openapi_server_proxy_uri"},
		{"openapi_server_proxy_uri accepts a path", func(h *Handler) { h.OpenAPIServerProxyURI = "https://api.example.com/rest/v1" }, ""},
		{"app_settings refuses an undotted name", func(h *Handler) { h.AppSettings = map[string]string{"jwt_secret": "x"} }, `app_settings: setting name "jwt_secret"`},
		{"app_settings refuses response settings", func(h *Handler) { h.AppSettings = map[string]string{"response.status": "200"} }, "app_settings: setting name \"response.status\" is reserved"},
		{"max_body_size refuses negatives", func(h *Handler) { h.MaxBodySize = -1 }, "max_body_size: must be more than 0 bytes, got -1"},
		{"max_body_size accepts one byte", func(h *Handler) { h.MaxBodySize = 1 }, ""},
		{"app_settings accepts custom settings", func(h *Handler) { h.AppSettings = map[string]string{"app.settings.k": "v", "my.k": ""} }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := validHandler()
			tt.modify(&h)
			err := h.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate: %v", err)
			case tt.want != "" && err == nil:
				t.Errorf("Validate succeeded; want an error containing %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Errorf("Validate: %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestResolveSecret(t *testing.T) {
	t.Setenv("PGREST_TEST_SECRET", testSecret)
	t.Setenv("PGREST_TEST_EMPTY", "")
	file := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(file, []byte(testSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	jwk := `{"alg":"RS256","e":"AQAB","key_ops":["verify"],"kty":"RSA","n":"abc"}`
	jwks := `{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}`

	tests := []struct {
		name, raw, want, wantErr string
	}{
		{name: "an empty value stays empty", raw: "", want: ""},
		{name: "a plain passphrase is taken as written", raw: testSecret, want: testSecret},
		{name: "an env placeholder is resolved", raw: "{env.PGREST_TEST_SECRET}", want: testSecret},
		{name: "a file placeholder is resolved without the final newline", raw: "{file." + file + "}", want: testSecret},
		{name: "a placeholder inside a URI is resolved", raw: "postgres://u:{env.PGREST_TEST_SECRET}@h/db", want: "postgres://u:" + testSecret + "@h/db"},
		{name: "an inline JWK is not mistaken for placeholders", raw: jwk, want: jwk},
		{name: "an inline JWKS is not mistaken for placeholders", raw: jwks, want: jwks},
		{name: "a file reference is left to jwtauth", raw: "@/run/secrets/jwt", want: "@/run/secrets/jwt"},
		{name: "an unset variable is an error", raw: "{env.PGREST_TEST_EMPTY}", wantErr: "jwt_secret: \"{env.PGREST_TEST_EMPTY}\" resolved to an empty value"},
		{name: "a missing file is an error", raw: "{file./nonexistent/pgrest}", wantErr: "resolved to an empty value"},
		{name: "a misspelt placeholder is an error, not a key", raw: "{evn.PGREST_TEST_SECRET}", wantErr: "jwt_secret: unrecognized placeholder {evn.PGREST_TEST_SECRET}"},
	}
	repl := caddy.NewReplacer()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolveSecret(repl, "jwt_secret", tt.raw)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v; want an error containing %q", got, err, tt.wantErr)
				}
				if strings.Contains(err.Error(), testSecret) {
					t.Errorf("error %q reveals the secret", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("resolveSecret: %v", err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAppSettingsAreSortedAndResolved(t *testing.T) {
	t.Setenv("PGREST_TEST_APP_SECRET", "s3cret")
	h := Handler{AppSettings: map[string]string{
		"app.settings.z":      "last",
		"app.settings.a":      "first",
		"app.settings.secret": "{env.PGREST_TEST_APP_SECRET}",
		"app.settings.empty":  "",
		"app.settings.json":   `{"a": [1, 2]}`,
	}}
	got, err := h.appSettings(caddy.NewReplacer())
	if err != nil {
		t.Fatal(err)
	}
	want := []executor.Setting{
		{Name: "app.settings.a", Value: "first"},
		{Name: "app.settings.empty", Value: ""},
		{Name: "app.settings.json", Value: `{"a": [1, 2]}`},
		{Name: "app.settings.secret", Value: "s3cret"},
		{Name: "app.settings.z", Value: "last"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestPoolKey(t *testing.T) {
	a := poolKeyFor(dbpool.Config{URI: testDBURI, MaxConns: 10})
	if a != poolKeyFor(dbpool.Config{URI: testDBURI, MaxConns: 10}) {
		t.Error("equal pool configs give different keys")
	}
	if a == poolKeyFor(dbpool.Config{URI: testDBURI, MaxConns: 11}) {
		t.Error("a different db_pool gives the same key")
	}
	if a == poolKeyFor(dbpool.Config{URI: testDBURI + "x", MaxConns: 10}) {
		t.Error("a different db_uri gives the same key")
	}
	if strings.Contains(string(a[:]), "pw@") {
		t.Error("the key holds the connection string")
	}
}

// provision provisions h outside a Caddy config and cleans it up with the
// test.
func provision(t *testing.T, h *Handler) error {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	err := h.Provision(ctx)
	t.Cleanup(func() {
		cancel()
		if err := h.Cleanup(); err != nil {
			t.Errorf("Cleanup: %v", err)
		}
		if n := livePools(); n != 0 {
			t.Errorf("%d pools left open after cleanup", n)
		}
	})
	return err
}

func TestProvision(t *testing.T) {
	t.Run("placeholders in db_uri are resolved before the pool is made", func(t *testing.T) {
		t.Setenv("PGREST_TEST_DB_URI", testDBURI)
		h := Handler{DBURI: "{env.PGREST_TEST_DB_URI}", DBSchemas: []string{"api"}}
		if err := provision(t, &h); err != nil {
			t.Fatal(err)
		}
		if want := poolKeyFor(dbpool.Config{URI: testDBURI, MaxConns: 10,
			MaxConnLifetime: 30 * time.Minute, MaxConnIdleTime: 30 * time.Second}); h.poolKey != want {
			t.Error("the pool was not made from the resolved db_uri")
		}
		if h.DBURI != "{env.PGREST_TEST_DB_URI}" {
			t.Errorf("the config now holds the resolved db_uri %q", h.DBURI)
		}
	})
	t.Run("an invalid configuration takes no pool", func(t *testing.T) {
		h := Handler{DBURI: testDBURI}
		err := provision(t, &h)
		if err == nil || !strings.Contains(err.Error(), "db_schemas") {
			t.Fatalf("got %v, want a db_schemas error", err)
		}
		if n := livePools(); n != 0 {
			t.Errorf("%d pools open", n)
		}
	})
	t.Run("an unparsable db_uri fails provisioning", func(t *testing.T) {
		h := Handler{DBURI: "postgres://u:pw@127.0.0.1:notaport/db", DBSchemas: []string{"api"}}
		err := provision(t, &h)
		if err == nil || !strings.Contains(err.Error(), "db_uri") {
			t.Fatalf("got %v, want a db_uri error", err)
		}
		if n := livePools(); n != 0 {
			t.Errorf("%d pools open after a failed constructor", n)
		}
	})
	for _, tt := range []struct {
		field  string
		modify func(*Handler)
	}{
		{"db_uri", func(h *Handler) { h.DBURI = "{env.PGREST_TEST_UNSET}" }},
		{"jwt_secret", func(h *Handler) { h.JWTSecret = "{env.PGREST_TEST_UNSET}" }},
		{"jwt_aud", func(h *Handler) { h.JWTAud = "{evn.PGREST_TEST_AUD}" }},
		{"app_settings", func(h *Handler) { h.AppSettings = map[string]string{"app.settings.k": "{evn.PGREST_TEST_K}"} }},
	} {
		t.Run("a placeholder in "+tt.field+" that does not resolve fails provisioning", func(t *testing.T) {
			t.Setenv("PGREST_TEST_UNSET", "")
			h := Handler{DBURI: testDBURI, DBSchemas: []string{"api"}}
			tt.modify(&h)
			err := provision(t, &h)
			if err == nil || !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("got %v, want a %s error", err, tt.field)
			}
			if n := livePools(); n != 0 {
				t.Errorf("%d pools open", n)
			}
		})
	}
	t.Run("a short HMAC passphrase fails provisioning", func(t *testing.T) {
		h := Handler{DBURI: testDBURI, DBSchemas: []string{"api"}, JWTSecret: "short"}
		err := provision(t, &h)
		if err == nil || !strings.Contains(err.Error(), "token verification") {
			t.Fatalf("got %v, want a token verification error", err)
		}
		if n := livePools(); n != 0 {
			t.Errorf("%d pools open", n)
		}
	})
}

func TestServeHTTPWritesAuthenticationErrors(t *testing.T) {
	expired, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"role": "author", "exp": time.Now().Add(-time.Hour).Unix(),
	}).SignedString([]byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                        string
		jwtSecret                   string
		method, authorization, code string
		status                      int
	}{
		{"a request without a token and without an anonymous role is refused", testSecret, "GET", "", "PGRST302", 401},
		{"a token that is not a JWT is refused", testSecret, "GET", "Bearer not-a-token", "PGRST301", 401},
		{"an expired token is refused", testSecret, "GET", "Bearer " + expired, "PGRST303", 401},
		{"a token without a configured jwt_secret is a server error", "", "GET", "Bearer " + expired, "PGRST300", 500},
		{"a HEAD request is refused with no body", testSecret, "HEAD", "", "PGRST302", 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := Handler{DBURI: testDBURI, DBSchemas: []string{"api"}, JWTSecret: tt.jwtSecret}
			if err := provision(t, &h); err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequest(tt.method, "/todos", nil)
			if tt.authorization != "" {
				r.Header.Set("Authorization", tt.authorization)
			}
			w := httptest.NewRecorder()
			next := nextHandlerFunc(func(http.ResponseWriter, *http.Request) error {
				t.Error("pgrest called the next handler")
				return nil
			})
			if err := h.ServeHTTP(w, r, next); err != nil {
				t.Fatalf("ServeHTTP returned %v; contract errors must be written, not returned", err)
			}
			if w.Code != tt.status {
				t.Errorf("status %d, want %d", w.Code, tt.status)
			}
			if got := w.Header().Get("Proxy-Status"); got != "pgrest; error="+tt.code {
				t.Errorf("Proxy-Status %q", got)
			}
			if tt.method == "HEAD" {
				if w.Body.Len() != 0 {
					t.Errorf("HEAD body %q", w.Body)
				}
				return
			}
			var body map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %q: %v", w.Body, err)
			}
			if body["code"] != tt.code {
				t.Errorf("code %v, want %s", body["code"], tt.code)
			}
		})
	}
}

type nextHandlerFunc func(http.ResponseWriter, *http.Request) error

func (f nextHandlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) error { return f(w, r) }

// livePools counts the connection pools open in the usage pool.
func livePools() int {
	n := 0
	pools.Range(func(_, _ any) bool { n++; return true })
	return n
}
