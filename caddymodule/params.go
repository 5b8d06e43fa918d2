package caddymodule

import "strings"

// param is one PostgREST v16 configuration parameter as a pgrest
// subdirective: its PostgREST name with `-` written `_`.
type param struct {
	name string
	// caddy, when set, says the concern is Caddy's: the subdirective is
	// refused with this text, which names the Caddy directive to use.
	caddy string
}

// params lists every PostgREST v16 configuration parameter, in the order
// of PostgREST's documentation. README.md has the same table for users;
// a test keeps the two in step.
var params = []param{
	{name: "admin_server_host", caddy: "pgrest has no admin server of its own: Caddy's admin endpoint is the `admin` global option, " +
		"and a health check is a route such as `respond /live 200` beside pgrest"},
	{name: "admin_server_port", caddy: "pgrest has no admin server of its own: Caddy's admin endpoint is the `admin` global option, " +
		"and a health check is a route such as `respond /live 200` beside pgrest"},
	{name: "admin_server_unix_socket", caddy: "pgrest has no admin server of its own: Caddy's admin endpoint is the `admin` global option " +
		"(`admin unix//path/to/socket`)"},
	{name: "admin_server_unix_socket_mode", caddy: "pgrest has no admin server of its own: Caddy's admin endpoint is the `admin` global option " +
		"(`admin unix//path/to/socket|0660`)"},
	{name: "app.settings.*"},
	{name: "client_error_verbosity"},
	{name: "db_aggregates_enabled"},
	{name: "db_anon_role"},
	{name: "db_channel"},
	{name: "db_channel_enabled"},
	{name: "db_config"},
	{name: "db_pre_config"},
	{name: "db_extra_search_path"},
	{name: "db_hoisted_tx_settings"},
	{name: "db_max_rows"},
	{name: "db_plan_enabled"},
	{name: "db_pool"},
	{name: "db_pool_acquisition_timeout"},
	{name: "db_pool_max_idletime"},
	{name: "db_pool_max_lifetime"},
	{name: "db_pool_automatic_recovery"},
	{name: "db_pre_request"},
	{name: "db_prepared_statements"},
	{name: "db_root_spec"},
	{name: "db_schemas"},
	{name: "db_tx_end"},
	{name: "db_uri"},
	{name: "jwt_aud"},
	{name: "jwt_role_claim_key"},
	{name: "jwt_secret"},
	{name: "jwt_secret_is_base64"},
	{name: "jwt_cache_max_entries"},
	{name: "jwt_cache_max_lifetime"},
	{name: "log_level"},
	{name: "log_query"},
	{name: "openapi_mode"},
	{name: "openapi_security_active"},
	{name: "openapi_server_proxy_uri"},
	{name: "server_cors_allowed_origins"},
	{name: "server_host", caddy: "Caddy binds the listener: put the host in the site address (`http://127.0.0.1:3000 { ... }`) or use the `bind` directive"},
	{name: "server_port", caddy: "Caddy binds the listener: put the port in the site address (`:3000 { ... }`)"},
	{name: "server_reuseport", caddy: "Caddy owns the listener and shares it across config reloads itself; there is nothing to set"},
	{name: "server_trace_header"},
	{name: "server_timing_enabled"},
	{name: "server_unix_socket", caddy: "Caddy binds the listener: use `bind unix//path/to/socket` in the site block"},
	{name: "server_unix_socket_mode", caddy: "Caddy binds the listener: give the mode with the socket, `bind unix//path/to/socket|0660`"},
	{name: "url_use_legacy_target_names"},
}

// paramAliases are the older names PostgREST still accepts, and the
// db_role_claim_key form of jwt_role_claim_key.
var paramAliases = map[string]string{
	"db_role_claim_key": "jwt_role_claim_key",
	"role_claim_key":    "jwt_role_claim_key",
	"max_rows":          "db_max_rows",
	"db_pool_timeout":   "db_pool_max_idletime",
	"pre_request":       "db_pre_request",
	"root_spec":         "db_root_spec",
	"db_schema":         "db_schemas",
	"secret_is_base64":  "jwt_secret_is_base64",
}

// canonicalParam returns the name an alias stands for, or name itself.
func canonicalParam(name string) string {
	if c, ok := paramAliases[name]; ok {
		return c
	}
	return name
}

// refusal returns why a known parameter is refused as a subdirective:
// its concern is Caddy's, and the text says which Caddy directive to use
// instead.
func refusal(name string) (string, bool) {
	for _, p := range params {
		if p.name == name && p.caddy != "" {
			return p.caddy, true
		}
	}
	return "", false
}

// appSettingPrefix starts the PostgREST form of an app setting,
// `app.settings.<name> <value>`, accepted beside app_settings.
const appSettingPrefix = "app.settings."

func isAppSettingParam(name string) bool {
	return strings.HasPrefix(name, appSettingPrefix) && len(name) > len(appSettingPrefix)
}
