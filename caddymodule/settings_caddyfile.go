package caddymodule

import (
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// unmarshalSetting reads the subdirectives of Settings:
//
//	client_error_verbosity      verbose|minimal
//	db_config                   true|false
//	db_pre_config               <function>
//	db_root_spec                <function>
//	db_hoisted_tx_settings      [<setting>...]      # "" for none
//	db_pool_max_lifetime        <duration>
//	db_pool_max_idletime        <duration>
//	db_pool_automatic_recovery  true|false
//	jwt_cache_max_lifetime      <duration>          # 0: until the token expires
//	log_level                   crit|error|warn|info|debug
//	log_query                   true|false
//	openapi_security_active     true|false
//	server_trace_header         <header name>
//	url_use_legacy_target_names true|false
//
// It says whether name is one of them.
func (h *Handler) unmarshalSetting(d *caddyfile.Dispenser, name, sub string) (bool, error) {
	var err error
	switch name {
	case "client_error_verbosity":
		h.ClientErrorVerbosity, err = oneArg(d, sub)
	case "db_config":
		h.DBConfig, err = boolPtrArg(d, sub)
	case "db_pre_config":
		h.DBPreConfig, err = oneArg(d, sub)
	case "db_root_spec":
		h.DBRootSpec, err = oneArg(d, sub)
	case "db_hoisted_tx_settings":
		h.DBHoistedTxSettings, err = listArgs(d, sub, true)
	case "db_pool_max_lifetime":
		h.DBPoolMaxLifetime, err = durationArg(d, sub)
	case "db_pool_max_idletime":
		h.DBPoolMaxIdletime, err = durationArg(d, sub)
	case "db_pool_automatic_recovery":
		h.DBPoolAutomaticRecovery, err = boolPtrArg(d, sub)
	case "jwt_cache_max_lifetime":
		h.JWTCacheMaxLifetime, err = durationOrZeroArg(d, sub)
	case "log_level":
		h.LogLevel, err = oneArg(d, sub)
	case "log_query":
		h.LogQuery, err = boolArg(d, sub)
	case "openapi_security_active":
		h.OpenAPISecurityActive, err = boolArg(d, sub)
	case "server_trace_header":
		h.ServerTraceHeader, err = oneArg(d, sub)
	case "url_use_legacy_target_names":
		h.URLUseLegacyTargetNames, err = boolPtrArg(d, sub)
	default:
		return false, nil
	}
	return true, err
}

// durationOrZeroArg is durationArg that also takes 0 (no limit).
func durationOrZeroArg(d *caddyfile.Dispenser, sub string) (caddy.Duration, error) {
	s, err := oneArg(d, sub)
	if err != nil {
		return 0, err
	}
	if s == "0" {
		return 0, nil
	}
	dur, err := parseSeconds(s)
	if err != nil || dur < 0 {
		return 0, d.Errf("%s: %q is not a duration such as 10s, or 0", sub, s)
	}
	return caddy.Duration(dur), nil
}

// parseSeconds reads a duration as PostgREST's whole seconds or as a
// Caddy duration such as 10s.
func parseSeconds(s string) (time.Duration, error) {
	if secs, err := strconv.ParseInt(s, 10, 32); err == nil {
		return time.Duration(secs) * time.Second, nil
	}
	return caddy.ParseDuration(s)
}

// unmarshalAppSetting reads PostgREST's own form of an app setting,
// `app.settings.<name> <value>`.
func (h *Handler) unmarshalAppSetting(d *caddyfile.Dispenser, name string) error {
	value, err := oneArg(d, name)
	if err != nil {
		return err
	}
	if h.AppSettings == nil {
		h.AppSettings = make(map[string]string)
	}
	if _, dup := h.AppSettings[name]; dup {
		return d.Errf("%s: given more than once", name)
	}
	h.AppSettings[name] = value
	return nil
}
