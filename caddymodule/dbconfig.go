package caddymodule

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// withDBSettings returns a copy of h with the in-database settings
// (by name, without the pgrst. prefix) laid over it, defaults applied.
// Values are read as PostgREST reads them: lists comma-separated, booleans
// true or false in any case (or a number, non-zero for true), durations
// whole seconds. An empty value stands for no value: the default applies,
// except for db_extra_search_path and db_hoisted_tx_settings, where it is
// the empty list. Caddy placeholders are not resolved in them.
func (h Handler) withDBSettings(settings map[string]string) (*Handler, error) {
	eff := h
	names := make([]string, 0, len(settings))
	for n := range settings {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := eff.setFromDB(name, settings[name]); err != nil {
			return nil, fmt.Errorf("pgrst.%s: %w", name, err)
		}
	}
	eff.applyDefaults()
	return &eff, nil
}

// setFromDB sets one in-database setting.
func (h *Handler) setFromDB(name, v string) error {
	var err error
	switch name {
	case "client_error_verbosity":
		h.ClientErrorVerbosity = v
	case "db_aggregates_enabled":
		h.DBAggregatesEnabled, err = dbBool(v, false)
	case "db_anon_role":
		h.DBAnonRole = v
	case "db_extra_search_path":
		h.DBExtraSearchPath = dbList(v)
	case "db_hoisted_tx_settings":
		h.DBHoistedTxSettings = dbList(v)
		if v == "" {
			h.DBHoistedTxSettings = nil // PostgREST's default list
		}
	case "db_max_rows":
		h.DBMaxRows, err = dbInt(v)
	case "db_plan_enabled":
		h.DBPlanEnabled, err = dbBool(v, false)
	case "db_plan_analyze_roles":
		h.DBPlanAnalyzeRoles = dbList(v)
	case "db_pre_request":
		h.DBPreRequest = v
	case "db_prepared_statements":
		var b bool
		b, err = dbBool(v, true)
		h.DBPreparedStatements = &b
	case "db_root_spec":
		h.DBRootSpec = v
	case "db_schemas":
		h.DBSchemas = nil
		if v != "" {
			h.DBSchemas = dbList(v)
		} else {
			h.DBSchemas = []string{"public"}
		}
	case "db_tx_end":
		h.DBTxEnd = v
	case "jwt_aud":
		h.JWTAud = v
	case "jwt_cache_max_entries":
		var n int64
		n, err = dbInt(v)
		h.JWTCacheMaxEntries = new(int(n))
		if v == "" {
			h.JWTCacheMaxEntries = nil
		}
	case "jwt_cache_max_lifetime":
		var n int64
		n, err = dbInt(v)
		h.JWTCacheMaxLifetime = caddy.Duration(time.Duration(n) * time.Second)
	case "jwt_role_claim_key":
		h.JWTRoleClaimKey = v
	case "jwt_secret":
		h.JWTSecret = v
	case "jwt_secret_is_base64":
		h.JWTSecretIsBase64, err = dbBool(v, false)
	case "openapi_mode":
		h.OpenAPIMode = v
	case "openapi_security_active":
		h.OpenAPISecurityActive, err = dbBool(v, false)
	case "openapi_server_proxy_uri":
		h.OpenAPIServerProxyURI = v
	case "server_cors_allowed_origins":
		h.ServerCORSAllowedOrigins = dbList(v)
	case "server_timing_enabled":
		h.ServerTimingEnabled, err = dbBool(v, false)
	case "server_trace_header":
		h.ServerTraceHeader = v
	case "url_use_legacy_target_names":
		var b bool
		b, err = dbBool(v, true)
		h.URLUseLegacyTargetNames = &b
	default:
		// db_pre_config is only read from the Caddyfile: it names the
		// function that reads the others.
	}
	return err
}

// dbList reads a comma-separated list; an empty value is the empty list.
func dbList(v string) []string {
	out := []string{}
	if strings.TrimSpace(v) == "" {
		return out
	}
	for part := range strings.SplitSeq(v, ",") {
		out = append(out, strings.TrimSpace(part))
	}
	return out
}

// dbBool reads a boolean the way PostgREST does: true or false in any
// case, or a number, non-zero for true. Empty is def.
func dbBool(v string, def bool) (bool, error) {
	if v == "" {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
		return n > 0, nil
	}
	return false, fmt.Errorf("expected true or false, got %q", v)
}

// dbInt reads an integer; empty is 0, which means the default.
func dbInt(v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer", v)
	}
	return n, nil
}
