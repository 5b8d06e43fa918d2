package caddymodule

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// sampleValues are a valid Caddyfile value of each supported parameter.
var sampleValues = map[string]string{
	"app_settings":                "app.settings.k1=v1",
	"db_channel_uri":              "{env.CHANNEL_URI}",
	"db_legacy_claims":            "true",
	"openapi_version":             "3.1",
	"max_body_size":               "1MiB",
	"db_plan_enabled":             "true",
	"db_plan_analyze_roles":       "admin",
	"server_cors_allowed_origins": "https://app.example.com",
	"db_replicas":                 "{env.REPLICA_URI}",
	"db_replica_max_lag":          "10s",
	"db_replica_check_interval":   "2s",
	"client_error_verbosity":      "minimal",
	"db_aggregates_enabled":       "true",
	"db_anon_role":                "web_anon",
	"db_channel":                  "pgrst",
	"db_channel_enabled":          "false",
	"db_config":                   "false",
	"db_pre_config":               "postgrest.pre_config",
	"db_extra_search_path":        `""`,
	"db_hoisted_tx_settings":      "work_mem, statement_timeout",
	"db_max_rows":                 "1000",
	"db_max_cost":                 "10000",
	"db_pool":                     "5",
	"db_pool_acquisition_timeout": "10",
	"db_pool_max_idletime":        "30",
	"db_pool_max_lifetime":        "1800",
	"db_pool_automatic_recovery":  "false",
	"db_pre_request":              "api.check",
	"db_prepared_statements":      "false",
	"db_root_spec":                "root",
	"db_schemas":                  "api,v2",
	"db_tx_end":                   "rollback",
	"db_uri":                      "@/run/secrets/db_uri",
	"jwt_aud":                     "api",
	"jwt_role_claim_key":          ".role",
	"jwt_secret":                  "@/run/secrets/jwt",
	"jwt_secret_is_base64":        "true",
	"jwt_cache_max_entries":       "0",
	"jwt_cache_max_lifetime":      "3600",
	"log_level":                   "warn",
	"log_query":                   "true",
	"openapi_mode":                "disabled",
	"openapi_security_active":     "true",
	"openapi_server_proxy_uri":    "https://api.example.com",
	"server_trace_header":         "X-Request-Id",
	"server_timing_enabled":       "true",
	"url_use_legacy_target_names": "false",
	"rate_limit":                  "per_user {\n key role claim:$.sub\n rate 10/s\n burst 5\n kinds read rpc:slow\n }",
	"rate_limit_redis":            "redis://127.0.0.1:6379/0",
	"rate_limit_redis_failure":    "closed",
	"realtime_enabled":            "true",
	"realtime_path":               "/realtime/v1/websocket",
	"realtime_publication":        "pgrest_realtime",
	"realtime_node_name":          "node1",
	"realtime_max_message_size":   "256KiB",
	"realtime_queue_size":         "64",
	"realtime_max_channels":       "10",
	"realtime_resume_window":      "10s",
}

func TestEveryPostgRESTParameterIsASubdirective(t *testing.T) {
	for _, p := range params {
		if p.caddy != "" {
			continue
		}
		t.Run(p.name+" is accepted", func(t *testing.T) {
			v, ok := sampleValues[p.name]
			if !ok {
				t.Fatalf("no sample value for %s", p.name)
			}
			line := p.name + " " + v
			var h Handler
			if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("pgrest {\n " + line + "\n}")); err != nil {
				t.Fatal(err)
			}
			if reflect.DeepEqual(h, Handler{}) {
				t.Errorf("%s set nothing", line)
			}
		})
	}
}

func TestCaddyOwnedParametersNameTheCaddyDirective(t *testing.T) {
	tests := map[string][]string{
		"server_host":                   {"site address", "bind"},
		"server_port":                   {"site address"},
		"server_unix_socket":            {"bind unix//"},
		"server_unix_socket_mode":       {"bind unix//", "|0660"},
		"server_reuseport":              {"Caddy owns the listener"},
		"admin_server_host":             {"`admin` global option"},
		"admin_server_port":             {"`admin` global option", "respond /live"},
		"admin_server_unix_socket":      {"`admin` global option"},
		"admin_server_unix_socket_mode": {"`admin` global option"},
	}
	for name, want := range tests {
		t.Run(name+" is refused", func(t *testing.T) {
			if p, ok := lookupParam(name); !ok || p.caddy == "" {
				t.Fatalf("%s is not marked as Caddy's", name)
			}
			var h Handler
			err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("pgrest {\n " + name + " 3000\n}"))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range append(want, name) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	t.Run("an unknown subdirective stays an error", func(t *testing.T) {
		var h Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("pgrest {\n server_prot 3000\n}"))
		if err == nil || !strings.Contains(err.Error(), `unrecognized subdirective "server_prot"`) {
			t.Fatalf("got %v", err)
		}
	})
}

func TestSettingsSubdirectives(t *testing.T) {
	tests := []struct {
		name, input string
		want        Handler
	}{
		{"an empty list is written as PostgREST writes it", "db_extra_search_path \"\"\n db_hoisted_tx_settings \"\"",
			Handler{DBExtraSearchPath: []string{}, Settings: Settings{DBHoistedTxSettings: []string{}}}},
		{"durations are seconds or Caddy durations", "db_pool_max_lifetime 60\n db_pool_max_idletime 1m30s\n jwt_cache_max_lifetime 0",
			Handler{Settings: Settings{DBPoolMaxLifetime: caddy.Duration(time.Minute), DBPoolMaxIdletime: caddy.Duration(90 * time.Second)}}},
		{"old names are aliases", "max_rows 5\n db_schema api\n pre_request api.pre\n root_spec root\n db_pool_timeout 5\n secret_is_base64 true\n role_claim_key .r",
			Handler{DBMaxRows: 5, DBSchemas: []string{"api"}, DBPreRequest: "api.pre", JWTSecretIsBase64: true, JWTRoleClaimKey: ".r",
				Settings: Settings{DBRootSpec: "root", DBPoolMaxIdletime: caddy.Duration(5 * time.Second)}}},
		{"app.settings.* is PostgREST's own form of app_settings", "app.settings.a 1\n app_settings app.settings.b=2",
			Handler{AppSettings: map[string]string{"app.settings.a": "1", "app.settings.b": "2"}}},
		{"schema names keep spaces, quotes and non-ASCII letters", "db_schemas \"my schema\" `it\"s` données",
			Handler{DBSchemas: []string{"my schema", `it"s`, "données"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Handler
			if err := got.UnmarshalCaddyfile(caddyfile.NewTestDispenser("pgrest {\n " + tt.input + "\n}")); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestSettingsAreValidated(t *testing.T) {
	tests := []struct {
		name string
		set  func(*Handler)
		want string
	}{
		{"client_error_verbosity takes verbose or minimal", func(h *Handler) { h.ClientErrorVerbosity = "terse" }, "client_error_verbosity"},
		{"log_level takes PostgREST's levels", func(h *Handler) { h.LogLevel = "trace" }, "log_level"},
		{"server_trace_header must be a header name", func(h *Handler) { h.ServerTraceHeader = "X Trace" }, "server_trace_header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := validHandler()
			tt.set(&h)
			if err := h.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error naming %s", err, tt.want)
			}
		})
	}
}

func TestInDatabaseSettingsOverTheCaddyfile(t *testing.T) {
	base := validHandler()
	base.DBAnonRole = "file_anon"
	base.DBMaxRows = 10
	eff, err := base.withDBSettings(map[string]string{
		"db_schemas":             "tenant1, tenant2",
		"db_anon_role":           "db_anon",
		"db_extra_search_path":   "",
		"db_prepared_statements": "FALSE",
		"jwt_cache_max_lifetime": "60",
		"server_trace_header":    "X-Trace",
		"db_plan_analyze_roles":  "admin, developer",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(eff.DBSchemas, []string{"tenant1", "tenant2"}) || eff.DBAnonRole != "db_anon" ||
		len(eff.DBExtraSearchPath) != 0 || *eff.DBPreparedStatements || eff.ServerTraceHeader != "X-Trace" ||
		eff.JWTCacheMaxLifetime != caddy.Duration(time.Minute) ||
		!reflect.DeepEqual(eff.DBPlanAnalyzeRoles, []string{"admin", "developer"}) {
		t.Errorf("database values did not win: %+v", eff)
	}
	if eff.DBMaxRows != 10 {
		t.Errorf("db_max_rows = %d, want the Caddyfile's 10", eff.DBMaxRows)
	}
	if base.DBAnonRole != "file_anon" {
		t.Error("the Caddyfile's configuration was changed")
	}
	if _, err := base.withDBSettings(map[string]string{"db_max_rows": "lots"}); err == nil ||
		!strings.Contains(err.Error(), "pgrst.db_max_rows") {
		t.Errorf("a bad value: got %v", err)
	}
}

func TestParamTableMatchesTheHandler(t *testing.T) {
	if err := checkParamTable(); err != nil {
		t.Fatal(err)
	}
}

func TestSettingsJSONKeysSitBesideTheOthers(t *testing.T) {
	h := Handler{DBURI: "x", Settings: Settings{DBConfig: new(false), ServerTraceHeader: "X-Id", DBHoistedTxSettings: []string{}}}
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"db_uri":"x","db_config":false,"db_hoisted_tx_settings":[],"server_trace_header":"X-Id"}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	var back Handler
	if err := json.Unmarshal(b, &back); err != nil || back.ServerTraceHeader != "X-Id" || *back.DBConfig {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}
