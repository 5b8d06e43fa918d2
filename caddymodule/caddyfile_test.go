package caddymodule

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestUnmarshalCaddyfile(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  Handler
	}{
		{
			name:  "an empty block sets nothing",
			input: `pgrest`,
			want:  Handler{},
		},
		{
			name:  "db_uri takes the connection string as written",
			input: "pgrest {\n db_uri postgres://authenticator:pw@127.0.0.1:5432/app\n}",
			want:  Handler{DBURI: "postgres://authenticator:pw@127.0.0.1:5432/app"},
		},
		{
			name:  "db_uri keeps placeholders for provisioning",
			input: "pgrest {\n db_uri {env.PGREST_DB_URI}\n}",
			want:  Handler{DBURI: "{env.PGREST_DB_URI}"},
		},
		{
			name:  "db_schemas takes several schemas in order",
			input: "pgrest {\n db_schemas api v2 public\n}",
			want:  Handler{DBSchemas: []string{"api", "v2", "public"}},
		},
		{
			name:  "db_schemas accepts PostgREST's comma-separated form",
			input: "pgrest {\n db_schemas \"api, v2\" v3\n}",
			want:  Handler{DBSchemas: []string{"api", "v2", "v3"}},
		},
		{
			name:  "db_anon_role sets the anonymous role",
			input: "pgrest {\n db_anon_role web_anon\n}",
			want:  Handler{DBAnonRole: "web_anon"},
		},
		{
			name:  "db_pre_request sets the function",
			input: "pgrest {\n db_pre_request api.check_request\n}",
			want:  Handler{DBPreRequest: "api.check_request"},
		},
		{
			name:  "db_extra_search_path takes several schemas",
			input: "pgrest {\n db_extra_search_path public extensions\n}",
			want:  Handler{DBExtraSearchPath: []string{"public", "extensions"}},
		},
		{
			name:  "db_extra_search_path with no value means none",
			input: "pgrest {\n db_extra_search_path\n}",
			want:  Handler{DBExtraSearchPath: []string{}},
		},
		{
			name:  "db_max_rows takes an integer",
			input: "pgrest {\n db_max_rows 1000\n}",
			want:  Handler{DBMaxRows: 1000},
		},
		{
			name:  "db_max_rows 0 means no cap",
			input: "pgrest {\n db_max_rows 0\n}",
			want:  Handler{},
		},
		{
			name:  "db_pool takes an integer",
			input: "pgrest {\n db_pool 25\n}",
			want:  Handler{DBPool: 25},
		},
		{
			name:  "db_pool_acquisition_timeout takes a duration",
			input: "pgrest {\n db_pool_acquisition_timeout 1m30s\n}",
			want:  Handler{DBPoolAcquisitionTimeout: caddy.Duration(90 * time.Second)},
		},
		{
			name:  "db_pool_acquisition_timeout reads a bare number as seconds, as PostgREST does",
			input: "pgrest {\n db_pool_acquisition_timeout 5\n}",
			want:  Handler{DBPoolAcquisitionTimeout: caddy.Duration(5 * time.Second)},
		},
		{
			name:  "db_aggregates_enabled takes true",
			input: "pgrest {\n db_aggregates_enabled true\n}",
			want:  Handler{DBAggregatesEnabled: true},
		},
		{
			name:  "db_plan_enabled takes true",
			input: "pgrest {\n db_plan_enabled true\n}",
			want:  Handler{DBPlanEnabled: true},
		},
		{
			name:  "db_plan_analyze_roles takes roles as arguments, comma-separated or both",
			input: "pgrest {\n db_plan_analyze_roles admin, developer \"QA team\"\n}",
			want:  Handler{DBPlanAnalyzeRoles: []string{"admin", "developer", "QA team"}},
		},
		{
			name:  "db_prepared_statements takes false",
			input: "pgrest {\n db_prepared_statements false\n}",
			want:  Handler{DBPreparedStatements: new(false)},
		},
		{
			name:  "db_prepared_statements takes true",
			input: "pgrest {\n db_prepared_statements true\n}",
			want:  Handler{DBPreparedStatements: new(true)},
		},
		{
			name:  "db_tx_end takes the mode",
			input: "pgrest {\n db_tx_end rollback-allow-override\n}",
			want:  Handler{DBTxEnd: "rollback-allow-override"},
		},
		{
			name:  "db_channel takes the channel",
			input: "pgrest {\n db_channel my_channel\n}",
			want:  Handler{DBChannel: "my_channel"},
		},
		{
			name:  "db_channel_enabled takes false",
			input: "pgrest {\n db_channel_enabled false\n}",
			want:  Handler{DBChannelEnabled: new(false)},
		},
		{
			name:  "jwt_secret keeps placeholders for provisioning",
			input: "pgrest {\n jwt_secret {env.PGREST_JWT_SECRET}\n}",
			want:  Handler{JWTSecret: "{env.PGREST_JWT_SECRET}"},
		},
		{
			name:  "jwt_secret takes a JWK as a backquoted token",
			input: "pgrest {\n jwt_secret `{\"kty\":\"oct\",\"k\":\"c2VjcmV0\"}`\n}",
			want:  Handler{JWTSecret: `{"kty":"oct","k":"c2VjcmV0"}`},
		},
		{
			name:  "jwt_secret takes a file reference",
			input: "pgrest {\n jwt_secret @/run/secrets/jwks.json\n}",
			want:  Handler{JWTSecret: "@/run/secrets/jwks.json"},
		},
		{
			name:  "jwt_secret_is_base64 takes true",
			input: "pgrest {\n jwt_secret_is_base64 true\n}",
			want:  Handler{JWTSecretIsBase64: true},
		},
		{
			name:  "jwt_aud takes the audience",
			input: "pgrest {\n jwt_aud https://api.example.com\n}",
			want:  Handler{JWTAud: "https://api.example.com"},
		},
		{
			name:  "jwt_role_claim_key takes a JSON path",
			input: "pgrest {\n jwt_role_claim_key .realm_access.roles[0]\n}",
			want:  Handler{JWTRoleClaimKey: ".realm_access.roles[0]"},
		},
		{
			name:  "db_role_claim_key is an alias of jwt_role_claim_key",
			input: "pgrest {\n db_role_claim_key .\"https://example.com/role\"\n}",
			want:  Handler{JWTRoleClaimKey: `."https://example.com/role"`},
		},
		{
			name:  "jwt_cache_max_entries takes 0 to disable the cache",
			input: "pgrest {\n jwt_cache_max_entries 0\n}",
			want:  Handler{JWTCacheMaxEntries: new(0)},
		},
		{
			name:  "db_legacy_claims takes the mode",
			input: "pgrest {\n db_legacy_claims true\n}",
			want:  Handler{DBLegacyClaims: "true"},
		},
		{
			name:  "openapi_mode takes the mode",
			input: "pgrest {\n openapi_mode disabled\n}",
			want:  Handler{OpenAPIMode: "disabled"},
		},
		{
			name:  "openapi_server_proxy_uri takes the URL",
			input: "pgrest {\n openapi_server_proxy_uri https://api.example.com/rest/v1\n}",
			want:  Handler{OpenAPIServerProxyURI: "https://api.example.com/rest/v1"},
		},
		{
			name:  "app_settings takes name=value pairs, values may hold = and placeholders",
			input: "pgrest {\n app_settings app.settings.k1=v1 app.settings.k2=a=b \"app.settings.greeting=hello world\" app.settings.jwt={env.JWT}\n}",
			want: Handler{AppSettings: map[string]string{
				"app.settings.k1": "v1", "app.settings.k2": "a=b",
				"app.settings.greeting": "hello world", "app.settings.jwt": "{env.JWT}",
			}},
		},
		{
			name:  "app_settings takes a block of name value lines",
			input: "pgrest {\n app_settings {\n  app.settings.k1 v1\n  app.settings.k2 \"\"\n }\n}",
			want:  Handler{AppSettings: map[string]string{"app.settings.k1": "v1", "app.settings.k2": ""}},
		},
		{
			name:  "app_settings given twice adds up",
			input: "pgrest {\n app_settings app.settings.k1=v1\n app_settings app.settings.k2=v2\n}",
			want:  Handler{AppSettings: map[string]string{"app.settings.k1": "v1", "app.settings.k2": "v2"}},
		},
		{
			name:  "server_timing_enabled takes true",
			input: "pgrest {\n server_timing_enabled true\n}",
			want:  Handler{ServerTimingEnabled: true},
		},
		{
			name:  "max_body_size takes bytes",
			input: "pgrest {\n max_body_size 1048576\n}",
			want:  Handler{MaxBodySize: 1 << 20},
		},
		{
			name:  "max_body_size takes a decimal size as Caddy's request_body does",
			input: "pgrest {\n max_body_size 10MB\n}",
			want:  Handler{MaxBodySize: 10_000_000},
		},
		{
			name:  "max_body_size takes a binary size, in any case and with a space",
			input: "pgrest {\n max_body_size \"2 mib\"\n}",
			want:  Handler{MaxBodySize: 2 << 20},
		},
		{
			name:  "max_body_size takes a fraction of a unit",
			input: "pgrest {\n max_body_size 1.5KiB\n}",
			want:  Handler{MaxBodySize: 1536},
		},
		{
			name: "the design's full block parses",
			input: `pgrest {
				db_uri                      postgres://authenticator:pw@127.0.0.1:5432/app
				db_schemas                  api more
				db_anon_role                web_anon
				db_pre_request              api.check_request
				db_extra_search_path        public extensions
				db_max_rows                 1000
				db_pool                     10
				db_pool_acquisition_timeout 10s
				db_aggregates_enabled       false
				db_prepared_statements      true
				db_tx_end                   commit
				db_channel                  pgrst
				db_channel_enabled          true
				jwt_secret                  @/run/secrets/jwt
				jwt_secret_is_base64        false
				jwt_aud                     api
				jwt_role_claim_key          .role
				jwt_cache_max_entries       1000
				db_legacy_claims            auto
				openapi_mode                follow-privileges
				openapi_server_proxy_uri    https://api.example.com
				app_settings                app.settings.k1=v1 app.settings.k2=v2
				server_timing_enabled       false
				max_body_size               10MiB
			}`,
			want: Handler{
				DBURI:                    "postgres://authenticator:pw@127.0.0.1:5432/app",
				DBSchemas:                []string{"api", "more"},
				DBAnonRole:               "web_anon",
				DBPreRequest:             "api.check_request",
				DBExtraSearchPath:        []string{"public", "extensions"},
				DBMaxRows:                1000,
				DBPool:                   10,
				DBPoolAcquisitionTimeout: caddy.Duration(10 * time.Second),
				DBPreparedStatements:     new(true),
				DBTxEnd:                  "commit",
				DBChannel:                "pgrst",
				DBChannelEnabled:         new(true),
				JWTSecret:                "@/run/secrets/jwt",
				JWTAud:                   "api",
				JWTRoleClaimKey:          ".role",
				JWTCacheMaxEntries:       new(1000),
				DBLegacyClaims:           "auto",
				OpenAPIMode:              "follow-privileges",
				OpenAPIServerProxyURI:    "https://api.example.com",
				AppSettings:              map[string]string{"app.settings.k1": "v1", "app.settings.k2": "v2"},
				MaxBodySize:              10 << 20,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Handler
			if err := got.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input)); err != nil {
				t.Fatalf("UnmarshalCaddyfile: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestUnmarshalCaddyfileErrors(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string // every one must appear in the error
	}{
		{"an unknown subdirective is named", "pgrest {\n db_url x\n}", []string{"unrecognized subdirective", `"db_url"`}},
		{"arguments on the directive line are refused", "pgrest postgres://x", []string{"takes no arguments"}},
		{"a missing value is named", "pgrest {\n db_uri\n}", []string{"db_uri", "expected one value, got 0"}},
		{"two values for one are named", "pgrest {\n db_anon_role a b\n}", []string{"db_anon_role", "expected one value, got 2"}},
		{"a repeated subdirective is named", "pgrest {\n db_uri a\n db_uri b\n}", []string{"db_uri", "more than once"}},
		{"the alias repeats its subdirective", "pgrest {\n jwt_role_claim_key .a\n db_role_claim_key .b\n}", []string{"db_role_claim_key", "more than once"}},
		{"a block after a value is refused", "pgrest {\n db_uri x {\n  y z\n }\n}", []string{"db_uri", "takes no block"}},
		{"db_schemas needs a schema", "pgrest {\n db_schemas\n}", []string{"db_schemas", "at least one"}},
		{"db_schemas refuses an empty name", "pgrest {\n db_schemas api,,v2\n}", []string{"db_schemas", "empty name"}},
		{"db_schemas takes no block", "pgrest {\n db_schemas api {\n  v2\n }\n}", []string{"db_schemas", "takes no block"}},
		{"db_extra_search_path refuses an empty name", "pgrest {\n db_extra_search_path public,\n}", []string{"db_extra_search_path", "empty name"}},
		{"db_max_rows needs an integer", "pgrest {\n db_max_rows many\n}", []string{"db_max_rows", `"many" is not an integer`}},
		{"db_max_rows refuses a negative cap", "pgrest {\n db_max_rows -1\n}", []string{"db_max_rows", "at least 0"}},
		{"db_pool needs an integer", "pgrest {\n db_pool 1.5\n}", []string{"db_pool", "not an integer"}},
		{"db_pool refuses 0", "pgrest {\n db_pool 0\n}", []string{"db_pool", "at least 1"}},
		{"db_pool needs one value", "pgrest {\n db_pool 1 2\n}", []string{"db_pool", "expected one value, got 2"}},
		{"db_pool_acquisition_timeout needs a value", "pgrest {\n db_pool_acquisition_timeout\n}", []string{"db_pool_acquisition_timeout", "expected one value, got 0"}},
		{"db_pool_acquisition_timeout needs a duration", "pgrest {\n db_pool_acquisition_timeout soon\n}", []string{"db_pool_acquisition_timeout", `"soon" is not a duration`}},
		{"db_pool_acquisition_timeout refuses zero", "pgrest {\n db_pool_acquisition_timeout 0s\n}", []string{"db_pool_acquisition_timeout", "more than 0"}},
		{"db_aggregates_enabled needs a boolean", "pgrest {\n db_aggregates_enabled yes\n}", []string{"db_aggregates_enabled", "expected true or false"}},
		{"db_plan_enabled needs a boolean", "pgrest {\n db_plan_enabled on\n}", []string{"db_plan_enabled", "expected true or false"}},
		{"db_plan_analyze_roles needs a role", "pgrest {\n db_plan_analyze_roles\n}", []string{"db_plan_analyze_roles", "at least one"}},
		{"db_plan_analyze_roles refuses an empty name", "pgrest {\n db_plan_analyze_roles admin,,dev\n}", []string{"db_plan_analyze_roles", "empty name"}},
		{"db_prepared_statements needs a boolean", "pgrest {\n db_prepared_statements off\n}", []string{"db_prepared_statements", "expected true or false"}},
		{"db_channel_enabled needs a boolean", "pgrest {\n db_channel_enabled 1\n}", []string{"db_channel_enabled", "expected true or false"}},
		{"jwt_secret_is_base64 needs a boolean", "pgrest {\n jwt_secret_is_base64 TRUE\n}", []string{"jwt_secret_is_base64", "expected true or false"}},
		{"server_timing_enabled needs a boolean", "pgrest {\n server_timing_enabled\n}", []string{"server_timing_enabled", "expected one value"}},
		{"max_body_size needs a value", "pgrest {\n max_body_size\n}", []string{"max_body_size", "expected one value, got 0"}},
		{"max_body_size needs a size", "pgrest {\n max_body_size huge\n}", []string{"max_body_size", `"huge" is not a size`}},
		{"max_body_size refuses an unknown unit", "pgrest {\n max_body_size 10QB\n}", []string{"max_body_size", `"10QB" is not a size`}},
		{"max_body_size refuses a negative size", "pgrest {\n max_body_size -1MB\n}", []string{"max_body_size", "not a size"}},
		{"max_body_size refuses zero", "pgrest {\n max_body_size 0\n}", []string{"max_body_size", "between 1 byte and"}},
		{"max_body_size refuses a size past int64", "pgrest {\n max_body_size 16EiB\n}", []string{"max_body_size"}},
		{"max_body_size is given once", "pgrest {\n max_body_size 1MB\n max_body_size 2MB\n}", []string{"max_body_size", "more than once"}},
		{"jwt_cache_max_entries needs an integer", "pgrest {\n jwt_cache_max_entries lots\n}", []string{"jwt_cache_max_entries", "not an integer"}},
		{"app_settings needs a value", "pgrest {\n app_settings\n}", []string{"app_settings", "expected name=value"}},
		{"app_settings needs name=value", "pgrest {\n app_settings app.settings.k1\n}", []string{"app_settings", `"app.settings.k1"`}},
		{"app_settings refuses a name without a prefix", "pgrest {\n app_settings k1=v1\n}", []string{"app_settings", `"k1"`, "prefix.name"}},
		{"app_settings refuses the request prefix", "pgrest {\n app_settings request.jwt.claims=x\n}", []string{"app_settings", "reserved"}},
		{"app_settings refuses a repeated name", "pgrest {\n app_settings a.b=1\n app_settings a.b=2\n}", []string{"app_settings", `"a.b"`, "more than once"}},
		{"app_settings block names need a prefix", "pgrest {\n app_settings {\n  k1 v1\n }\n}", []string{"app_settings", `"k1"`, "prefix.name"}},
		{"app_settings block lines need one value", "pgrest {\n app_settings {\n  a.b\n }\n}", []string{"app_settings", "a.b", "expected one value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Handler
			err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
			if err == nil {
				t.Fatalf("UnmarshalCaddyfile succeeded; want an error containing %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
