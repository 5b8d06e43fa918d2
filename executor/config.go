package executor

import (
	"time"

	"go.uber.org/zap/zapcore"

	"github.com/pgrest/caddy-pgrest/executor/replicas"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// TxEnd says how each request's transaction ends (db_tx_end).
type TxEnd string

// The db_tx_end values. The -allow-override forms let a request choose with
// Prefer: tx=commit or tx=rollback.
const (
	TxCommit                TxEnd = "commit"
	TxCommitAllowOverride   TxEnd = "commit-allow-override"
	TxRollback              TxEnd = "rollback"
	TxRollbackAllowOverride TxEnd = "rollback-allow-override"
)

// Valid reports whether t is one of the four db_tx_end values.
func (t TxEnd) Valid() bool {
	switch t {
	case TxCommit, TxCommitAllowOverride, TxRollback, TxRollbackAllowOverride:
		return true
	}
	return false
}

// OpenAPI modes (openapi_mode).
const (
	OpenAPIFollowPrivileges = "follow-privileges"
	OpenAPIIgnorePrivileges = "ignore-privileges"
	OpenAPIDisabled         = "disabled"
)

// Legacy-claims modes (db_legacy_claims).
const (
	LegacyClaimsAuto  = "auto"
	LegacyClaimsTrue  = "true"
	LegacyClaimsFalse = "false"
)

// Setting is one app_settings entry, set per request with set_config;
// the same shape as a function's SET clause.
type Setting = schemacache.Setting

// Config is the executor's part of the handler configuration, with
// defaults already applied.
type Config struct {
	// Observer, when set, is told of pool waits and timeouts.
	Observer Observer
	// Schemas are db_schemas; the first is the default.
	Schemas []string
	// PreRequest is db_pre_request: a function name, optionally
	// schema-qualified ("api.check_request").
	PreRequest string
	// ExtraSearchPath follows the request's schema in search_path.
	ExtraSearchPath []string
	// MaxRows caps every read (db_max_rows); 0 means no cap.
	MaxRows int64
	// MaxCost is db_max_cost: the planner cost over which a request's
	// main statement is refused before it runs (costguard.go); 0 means
	// no limit. A role's pgrst.db_max_cost setting overrides it.
	MaxCost int64
	// MaxBodySize bounds a request body in bytes (max_body_size); 0 means
	// DefaultMaxBodySize.
	MaxBodySize int64
	// PoolAcquisitionTimeout bounds the wait for a pool connection.
	PoolAcquisitionTimeout time.Duration
	// AggregatesEnabled allows count(), sum(), ... in select.
	AggregatesEnabled bool
	// PlanEnabled answers the plan media type with the statement's EXPLAIN.
	PlanEnabled bool
	// PlanAnalyzeRoles are the roles whose plans may ask for
	// options=analyze (db_plan_analyze_roles); empty: no role's may.
	PlanAnalyzeRoles []string
	// PreparedStatements names and reuses statements per connection; off
	// for PgBouncer in transaction mode.
	PreparedStatements bool
	// TxEnd is db_tx_end.
	TxEnd TxEnd
	// Channel is the LISTEN channel for schema reloads (db_channel).
	Channel string
	// ChannelEnabled turns the listener on (db_channel_enabled).
	ChannelEnabled bool
	// ChannelURI is db_channel_uri: where the listener connects, when not
	// through the pool's db_uri. LISTEN needs a session of its own, which
	// a pooler in transaction mode (PgBouncer) does not keep.
	ChannelURI string
	// LegacyClaims is "auto", "true" or "false" (db_legacy_claims).
	LegacyClaims string
	// OpenAPIMode is openapi_mode.
	OpenAPIMode string
	// OpenAPIServerProxyURI is the server address the API description names.
	OpenAPIServerProxyURI string
	// OpenAPIVersion is openapi_version: "2.0" (PostgREST's, the default)
	// or "3.1".
	OpenAPIVersion string
	// AppSettings are set with set_config on every request, in this order.
	AppSettings []Setting
	// ServerTimingEnabled adds a Server-Timing header to responses.
	ServerTimingEnabled bool
	// CORSAllowList says server_cors_allowed_origins lists the origins
	// that may read answers. The OPTIONS answer then carries no
	// Access-Control-Allow-Origin: * (PostgREST's, which would open it to
	// every origin); the CORS layer in front adds a listed origin's.
	CORSAllowList bool

	// HoistedTxSettings are the settings of a function's SET clauses that
	// are set for the whole transaction of its call
	// (db_hoisted_tx_settings); nil means DefaultHoistedTxSettings.
	HoistedTxSettings []string
	// RootSpec is db_root_spec: a function answering GET / instead of
	// the OpenAPI document; empty for the document.
	RootSpec string
	// OpenAPISecurityActive adds the JWT security definition to the
	// OpenAPI document (openapi_security_active).
	OpenAPISecurityActive bool
	// NoAutomaticRecovery stops the listener from reconnecting once its
	// connection is lost (db_pool_automatic_recovery false).
	NoAutomaticRecovery bool
	// NoLegacyTargetNames makes the alias the only name of an aliased
	// embed in filters, orders and limits (url_use_legacy_target_names
	// false); by default its relation name works too, with a deprecation
	// Warning header.
	NoLegacyTargetNames bool
	// LogQuery logs the SQL of every statement a request runs at
	// LogQueryLevel (log_query); values are not logged.
	LogQuery      bool
	LogQueryLevel zapcore.Level
	// OnReloadSchema and OnReloadConfig, when set, are what the listener
	// calls on `NOTIFY <db_channel>, 'reload schema'` and 'reload config',
	// and both after it reconnects. A handler whose executor is replaced
	// when its in-database configuration changes keeps one listener and
	// routes its notifications through these.
	OnReloadSchema func()
	OnReloadConfig func()
	// Replicas, when set, are the read replicas (db_replicas) that
	// read-only requests run on (see replica_route.go); the caller owns
	// them.
	Replicas *replicas.Set
}
