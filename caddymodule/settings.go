package caddymodule

import (
	"strings"

	"github.com/caddyserver/caddy/v2"
)

// Settings are the PostgREST v16 parameters beyond those the handler
// started with. They are embedded in Handler, so their JSON keys sit
// beside the others.
type Settings struct {
	// `verbose` (default) writes every error with code, message, details
	// and hint; `minimal` writes code and message only, so details and
	// hints stay in the log.
	ClientErrorVerbosity string `json:"client_error_verbosity,omitempty"`

	// Reads settings from the database: `pgrst.*` settings of the
	// authenticator (ALTER ROLE ... SET, ALTER ROLE ... IN DATABASE ...
	// SET, which wins) and those db_pre_config sets, re-read on `NOTIFY
	// pgrst, 'reload config'`. A database value beats the Caddyfile's.
	// Default: true.
	DBConfig *bool `json:"db_config,omitempty"`

	// A function, optionally schema-qualified, called before the
	// in-database settings are read; it sets them with set_config. It runs
	// on a connection of its own with every pgrst.* name read back first
	// set to empty, so a session's values never count as its.
	DBPreConfig string `json:"db_pre_config,omitempty"`

	// A function answering GET / in place of the OpenAPI document.
	DBRootSpec string `json:"db_root_spec,omitempty"`

	// The settings of a function's SET clauses that are set for the whole
	// transaction of its call. Default: statement_timeout,
	// plan_filter.statement_cost_limit, default_transaction_isolation; an
	// empty list hoists none.
	DBHoistedTxSettings []string `json:"db_hoisted_tx_settings,omitzero"`

	// How long a pool connection lives before it is replaced. Default:
	// 30m.
	DBPoolMaxLifetime caddy.Duration `json:"db_pool_max_lifetime,omitempty"`

	// How long a pool connection may sit idle before it is closed.
	// Default: 30s.
	DBPoolMaxIdletime caddy.Duration `json:"db_pool_max_idletime,omitempty"`

	// Reconnects the listener after the database went away. Default: true.
	DBPoolAutomaticRecovery *bool `json:"db_pool_automatic_recovery,omitempty"`

	// How long a verified token stays cached before it is verified again;
	// 0 or absent: until it expires.
	JWTCacheMaxLifetime caddy.Duration `json:"jwt_cache_max_lifetime,omitempty"`

	// The least level pgrest logs at: `crit`, `error`, `warn`, `info` or
	// `debug`. Absent: whatever Caddy's log is set to.
	LogLevel string `json:"log_level,omitempty"`

	// Logs the SQL of every request's statements at log_level.
	LogQuery bool `json:"log_query,omitempty"`

	// Adds the JWT security definition to the OpenAPI document.
	OpenAPISecurityActive bool `json:"openapi_security_active,omitempty"`

	// A request header whose value is echoed on the response under the
	// same name, such as X-Request-Id.
	ServerTraceHeader string `json:"server_trace_header,omitempty"`

	// Lets a filter, order or limit name an aliased embedded resource by
	// its relation (tasks.id=eq.1 for select=the_tasks:tasks(id)) as well
	// as by its alias, with a deprecation Warning header; false makes
	// that PGRST108. Default: true.
	URLUseLegacyTargetNames *bool `json:"url_use_legacy_target_names,omitempty"`
}

// isHeaderName says whether s is an HTTP field name (RFC 9110's token).
func isHeaderName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
		if !ok {
			return false
		}
	}
	return s != ""
}
