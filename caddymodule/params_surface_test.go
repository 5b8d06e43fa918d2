package caddymodule

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// updateSurface rewrites testdata/params_surface.golden from the code.
var updateSurface = flag.Bool("update-surface", false, "rewrite testdata/params_surface.golden")

// surfaceNames are every subdirective name pgrest reads or refuses, the
// aliases included, written out here rather than taken from the
// parameter table, so the golden file pins what the Caddyfile, the JSON
// config and the database accept independently of how the table is laid
// out.
var surfaceNames = []string{
	"admin_server_host", "admin_server_port", "admin_server_unix_socket", "admin_server_unix_socket_mode",
	"app.settings.k", "app_settings",
	"client_error_verbosity",
	"db_aggregates_enabled", "db_anon_role", "db_channel", "db_channel_enabled", "db_channel_uri",
	"db_config", "db_extra_search_path", "db_hoisted_tx_settings", "db_legacy_claims",
	"db_max_cost", "db_max_rows", "max_rows",
	"db_plan_analyze_roles", "db_plan_enabled",
	"db_pool", "db_pool_acquisition_timeout", "db_pool_automatic_recovery",
	"db_pool_max_idletime", "db_pool_timeout", "db_pool_max_lifetime",
	"db_pre_config", "db_pre_request", "pre_request", "db_prepared_statements",
	"db_replica_check_interval", "db_replica_max_lag", "db_replicas",
	"db_root_spec", "root_spec", "db_schemas", "db_schema", "db_tx_end", "db_uri",
	"jwt_aud", "jwt_cache_max_entries", "jwt_cache_max_lifetime",
	"jwt_role_claim_key", "db_role_claim_key", "role_claim_key",
	"jwt_secret", "jwt_secret_is_base64", "secret_is_base64",
	"log_level", "log_query", "max_body_size",
	"openapi_mode", "openapi_security_active", "openapi_server_proxy_uri", "openapi_version",
	"realtime_enabled", "realtime_max_channels", "realtime_max_message_size", "realtime_node_name",
	"realtime_path", "realtime_publication", "realtime_queue_size", "realtime_resume_window",
	"server_cors_allowed_origins", "server_host", "server_port", "server_reuseport",
	"server_timing_enabled", "server_trace_header", "server_unix_socket", "server_unix_socket_mode",
	"url_use_legacy_target_names",
	"unknown_name",
}

// surfaceArgs are the argument lists every name is tried with: every
// kind of value a parameter reads, and values each kind refuses.
var surfaceArgs = []string{
	``, `""`, `x`, `a b`, `a,b`, `a, b`, `a,,b`, `true`, `false`, `TRUE`, `1`, `0`, `-1`, `5`, `1.5`,
	`10s`, `1m30s`, `0s`, `1MiB`, `16EiB`, `rollback`, `minimal`, `warn`, `disabled`, `3.1`,
	`https://api.example.com/x`, `postgres://u:pw@h/db`, `k=v`, `a.b=1`, `x {` + "\n y z\n }",
}

// surfaceDBValues are the values every name is tried with in the
// database.
var surfaceDBValues = []string{``, `x`, `a, b`, `true`, `FALSE`, `0`, `5`, `-1`, `1.5`}

// surfaceJSONValues are the JSON values every key is tried with for
// Validate, over a valid configuration.
var surfaceJSONValues = []string{`""`, `"x"`, `"none"`, `"pg_catalog"`, `"http://"`, `"X Y"`, `-1`, `0`, `5`,
	`2147483648`, `[]`, `[""]`, `["a","a"]`, `["pg_catalog"]`, `["information_schema"]`, `["null"]`,
	`{"k":"v"}`, `{"request.x":"v"}`, `true`, `false`}

// dumpHandler writes every non-zero configuration field of h by JSON key,
// telling nil from empty lists and showing what pointers hold.
func dumpHandler(h Handler) string { return strings.Join(dumpFields(h), " ") }

// dumpFields are dumpHandler's fields, one key=value each.
func dumpFields(h Handler) []string {
	var parts []string
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if f.Anonymous {
				walk(v.Field(i))
				continue
			}
			if !f.IsExported() || v.Field(i).IsZero() {
				continue
			}
			key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			fv := v.Field(i)
			var s string
			switch fv.Kind() {
			case reflect.Pointer:
				s = fmt.Sprintf("&%v", fv.Elem().Interface())
			case reflect.Map:
				keys := fv.MapKeys()
				ks := make([]string, len(keys))
				for j, k := range keys {
					ks[j] = fmt.Sprintf("%s=%v", k, fv.MapIndex(k))
				}
				sort.Strings(ks)
				s = "{" + strings.Join(ks, " ") + "}"
			case reflect.Slice:
				s = fmt.Sprintf("%q", fv.Interface())
			default:
				s = fmt.Sprintf("%q", fmt.Sprint(fv.Interface()))
			}
			parts = append(parts, key+"="+s)
		}
	}
	walk(reflect.ValueOf(h))
	return parts
}

// surface writes what every name does in the Caddyfile, the database,
// the JSON config, the defaults, Validate and the admin API's redaction.
func surface() string {
	var b strings.Builder
	b.WriteString("# Caddyfile: one subdirective, its arguments => the config or the error\n")
	for _, name := range surfaceNames {
		for _, arg := range surfaceArgs {
			var h Handler
			line := strings.TrimSpace(name + " " + arg)
			out := ""
			if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("pgrest {\n " + line + "\n}")); err != nil {
				out = "error: " + err.Error()
			} else {
				out = dumpHandler(h)
			}
			fmt.Fprintf(&b, "%q => %s\n", line, out)
		}
	}
	b.WriteString("# Caddyfile: a name given twice, or with its alias\n")
	for _, pair := range [][2]string{{"db_uri a", "db_uri b"}, {"db_max_rows 1", "max_rows 2"},
		{"db_schema a", "db_schemas b"}, {"role_claim_key .a", "db_role_claim_key .b"},
		{"app.settings.a 1", "app.settings.a 2"}, {"app_settings a.b=1", "app.settings.c 2"},
		{"app_settings a.b=1", "app_settings a.b=2"}, {"db_pool_timeout 1", "db_pool_max_idletime 2"},
		{"pre_request a", "db_pre_request b"}, {"root_spec a", "db_root_spec b"}, {"secret_is_base64 true", "jwt_secret_is_base64 false"}} {
		var h Handler
		out := ""
		if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("pgrest {\n " + pair[0] + "\n " + pair[1] + "\n}")); err != nil {
			out = "error: " + err.Error()
		} else {
			out = dumpHandler(h)
		}
		fmt.Fprintf(&b, "%q + %q => %s\n", pair[0], pair[1], out)
	}

	b.WriteString("# defaults\n")
	var d Handler
	d.applyDefaults()
	b.WriteString(dumpHandler(d) + "\n")

	b.WriteString("# in-database names\n")
	b.WriteString(strings.Join(surfaceDBNames(), " ") + "\n")
	b.WriteString("# in-database: pgrst.<name> = value over a valid configuration => what changes or the error\n")
	base := validHandler()
	base.DBPlanAnalyzeRoles = []string{"r"}
	base.ServerCORSAllowedOrigins = []string{"https://o.example"}
	base.DBHoistedTxSettings = []string{"work_mem"}
	baseDump := dumpFields(base)
	for _, name := range surfaceNames {
		for _, v := range surfaceDBValues {
			out := ""
			if eff, err := base.withDBSettings(map[string]string{name: v}); err != nil {
				out = "error: " + err.Error()
			} else {
				var diff []string
				effDump := dumpFields(*eff)
				for _, f := range effDump {
					if !slices.Contains(baseDump, f) {
						diff = append(diff, "+"+f)
					}
				}
				for _, f := range baseDump {
					if !slices.Contains(effDump, f) {
						diff = append(diff, "-"+f)
					}
				}
				out = strings.Join(diff, " ")
			}
			fmt.Fprintf(&b, "%s=%q => %s\n", name, v, out)
		}
	}

	b.WriteString("# JSON: every key set\n")
	full := fullHandler()
	js, err := json.Marshal(full)
	if err != nil {
		panic(err)
	}
	b.Write(js)
	b.WriteString("\n")

	b.WriteString("# Validate: one JSON key over a valid configuration, defaults applied => the error\n")
	baseJSON, _ := json.Marshal(Handler{DBURI: testDBURI, DBSchemas: []string{"api"}})
	var keys map[string]any
	_ = json.Unmarshal(js, &keys)
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, key := range names {
		for _, v := range surfaceJSONValues {
			var h Handler
			_ = json.Unmarshal(baseJSON, &h)
			if err := json.Unmarshal([]byte(`{"`+key+`":`+v+`}`), &h); err != nil {
				continue
			}
			h.applyDefaults()
			out := "ok"
			if err := h.Validate(); err != nil {
				out = "error: " + err.Error()
			}
			fmt.Fprintf(&b, "%s=%s => %s\n", key, v, out)
		}
	}

	b.WriteString("# redaction for /pgrest/config\n")
	for _, secret := range []string{"s3cret", "{env.S}", "{file./run/s}", "@/run/s", "x{env.S}",
		"postgres://u:pw@h/db", "host=h password=pw", "postgres://u@h/db?password=pw"} {
		h := full
		h.DBURI, h.DBChannelURI, h.JWTSecret, h.JWTAud = secret, secret, secret, secret
		h.DBReplicas = []string{secret}
		h.AppSettings = map[string]string{"app.settings.a": secret}
		h.DBAnonRole, h.DBPreRequest, h.OpenAPIServerProxyURI = secret, secret, secret
		fmt.Fprintf(&b, "%q => %s\n", secret, dumpHandler(h.redacted()))
	}
	return b.String()
}

// fullHandler sets every field of the configuration.
func fullHandler() Handler {
	h := Handler{
		DBURI: "postgres://u@h/db", DBSchemas: []string{"api"}, DBAnonRole: "anon", DBPreRequest: "pre",
		DBExtraSearchPath: []string{"ext"}, DBMaxRows: 5, DBPool: 3, DBPoolAcquisitionTimeout: 7,
		DBAggregatesEnabled: true, DBPlanEnabled: true, DBPlanAnalyzeRoles: []string{"adm"},
		DBPreparedStatements: new(false), DBTxEnd: "rollback", DBChannel: "ch", DBChannelEnabled: new(false),
		DBChannelURI: "postgres://u@h2/db", JWTSecret: "sec", JWTSecretIsBase64: true, JWTAud: "aud",
		JWTRoleClaimKey: "$.r", JWTCacheMaxEntries: new(9), DBLegacyClaims: "true", OpenAPIMode: "disabled",
		OpenAPIServerProxyURI: "https://p.example", OpenAPIVersion: "3.1", AppSettings: map[string]string{"a.b": "c"},
		ServerTimingEnabled: true, MaxBodySize: 11, ServerCORSAllowedOrigins: []string{"https://o.example"},
	}
	h.Settings = Settings{ClientErrorVerbosity: "minimal", DBConfig: new(false), DBPreConfig: "pc", DBRootSpec: "rs",
		DBHoistedTxSettings: []string{"work_mem"}, DBPoolMaxLifetime: 12, DBPoolMaxIdletime: 13,
		DBPoolAutomaticRecovery: new(false), JWTCacheMaxLifetime: 14, LogLevel: "warn", LogQuery: true,
		OpenAPISecurityActive: true, ServerTraceHeader: "X-T", URLUseLegacyTargetNames: new(false)}
	h.ReplicaSettings = ReplicaSettings{DBReplicas: []string{"postgres://u@r/db"}, DBReplicaMaxLag: 15, DBReplicaCheckInterval: 16}
	return h
}

// TestParameterSurfaceIsUnchanged pins every accepted spelling, what it
// sets, every error message of the Caddyfile reader, the in-database
// reader and Validate, the defaults, the JSON keys and the redaction,
// against testdata/params_surface.golden. Rewrite the file with
// -update-surface only for a change meant to be visible to users.
func TestParameterSurfaceIsUnchanged(t *testing.T) {
	got := surface()
	const golden = "testdata/params_surface.golden"
	if *updateSurface {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		n := 0
		for i := 0; i < max(len(gl), len(wl)) && n < 20; i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("line %d:\n got  %s\n want %s", i+1, g, w)
				n++
			}
		}
	}
}

// surfaceDBNames are the names the in-database configuration reads.
func surfaceDBNames() []string {
	names := dbConfigNames()
	slices.Sort(names)
	return names
}
