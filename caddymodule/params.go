package caddymodule

//go:generate go test -run TestREADMEParameterTable -update-readme

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/pgrest/caddy-pgrest/executor"
	"github.com/pgrest/caddy-pgrest/executor/openapi"
	"github.com/pgrest/caddy-pgrest/executor/replicas"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/ratelimit"
	"github.com/pgrest/caddy-pgrest/realtime"
)

// params is every configuration parameter pgrest knows, defined once, in
// the order of the Handler's JSON keys, then those whose concern is
// Caddy's. As PostgREST's Config.hs is one parser for its file, its
// environment and its database, this table drives the Caddyfile reader
// (caddyfile.go), the defaults and Validate (params_apply.go), the
// in-database reader (dbconfig.go), the admin API's redaction
// (admin_redact.go) and the README's tables (params_readme_test.go).
// Adding a parameter is one entry here, its Handler field and its use.
var params = []param{
	{name: "db_uri", kind: kindString, secret: secretConnString, atFile: true, defDoc: "required",
		check: func(h *Handler) error {
			if strings.TrimSpace(h.DBURI) == "" {
				return fmt.Errorf("db_uri: required")
			}
			return nil
		},
		doc: "connection URL of the authenticator role; `@/path/file` reads it from a file"},
	{name: "db_schemas", aliases: []string{"db_schema"}, kind: kindList, db: true, dbEmpty: "public", defDoc: "required",
		check: func(h *Handler) error {
			if len(h.DBSchemas) == 0 {
				return fmt.Errorf("db_schemas: at least one schema is required")
			}
			if err := checkNames("db_schemas", h.DBSchemas); err != nil {
				return err
			}
			return checkNoCatalogSchema(h.DBSchemas)
		},
		doc: "exposed schemas; the first is the default. Names may hold spaces, quotes and any letter, not commas, " +
			"which separate names as in PostgREST; `pg_catalog` and `information_schema` are refused at start, as in PostgREST v16"},
	{name: "db_anon_role", kind: kindString, db: true,
		check: func(h *Handler) error {
			if h.DBAnonRole == "none" {
				return fmt.Errorf(`db_anon_role: "none" would run anonymous requests as the authenticator itself; ` +
					"name a role the authenticator is granted, or leave db_anon_role out to refuse anonymous requests")
			}
			return nil
		},
		doc: "role for requests without a token (`none` is refused; the authenticator's own name starts with a warning, see SECURITY.md)"},
	{name: "db_pre_request", aliases: []string{"pre_request"}, kind: kindString, db: true,
		doc: "function called after the role switch, before each request's statement"},
	{name: "db_extra_search_path", kind: kindList, empty: emptyIsNone, db: true, def: []string{"public"},
		check: func(h *Handler) error { return checkNames("db_extra_search_path", h.DBExtraSearchPath) },
		doc:   "schemas searched after the request's schema; `\"\"` for none"},
	{name: "db_max_rows", aliases: []string{"max_rows"}, kind: kindInt, db: true,
		check: func(h *Handler) error {
			if h.DBMaxRows < 0 {
				return fmt.Errorf("db_max_rows: must be 0 (no cap) or more, got %d", h.DBMaxRows)
			}
			return nil
		},
		doc: "cap on the rows of any read; none when absent"},
	{name: "db_max_cost", kind: kindInt, db: true, pgrest: true, defDoc: "none",
		check: func(h *Handler) error {
			if h.DBMaxCost < 0 || h.DBMaxCost > schemacache.MaxCostLimit {
				return fmt.Errorf("db_max_cost: must be from 0 (no limit) to %d, got %d", int64(schemacache.MaxCostLimit), h.DBMaxCost)
			}
			return nil
		},
		doc: "planner cost over which a request's statement is refused with 400 `PGRST195` before it runs, " +
			"checked with `EXPLAIN`; a role's `pgrst.db_max_cost` setting overrides it, and one that is not a whole " +
			"number from 0 to 4294967295 is a startup error naming the setting and the role " +
			"(see [Query cost guard](#query-cost-guard))"},
	{name: "db_pool", kind: kindInt, min: 1, def: 10,
		check: func(h *Handler) error {
			if h.DBPool < 1 || h.DBPool > math.MaxInt32 {
				return fmt.Errorf("db_pool: must be between 1 and %d, got %d", math.MaxInt32, h.DBPool)
			}
			return nil
		},
		doc: "number of database connections"},
	{name: "db_pool_acquisition_timeout", kind: kindDuration, def: caddy.Duration(10 * time.Second),
		check: func(h *Handler) error {
			if h.DBPoolAcquisitionTimeout <= 0 {
				return fmt.Errorf("db_pool_acquisition_timeout: must be more than 0, got %s", time.Duration(h.DBPoolAcquisitionTimeout))
			}
			return nil
		},
		doc: "how long a request waits for a connection (then 504 PGRST003): seconds or a duration such as `10s`"},
	{name: "db_aggregates_enabled", kind: kindBool, db: true, def: false,
		doc: "allow `count()`, `sum()`, … in `select` (to-many spreads, `...children(col)`, need no setting, as in PostgREST)"},
	{name: "db_plan_enabled", kind: kindBool, db: true, def: false,
		doc: "answer `Accept: application/vnd.pgrst.plan` with the request's `EXPLAIN` (writes rolled back). " +
			"A plan shows every role what the planner knows of the tables it reads, rows the role may not see included: " +
			"keep it off where clients are not trusted (see [Execution plans](SECURITY.md#execution-plans)); " +
			"`options=analyze` only for the roles of `db_plan_analyze_roles`"},
	{name: "db_plan_analyze_roles", kind: kindList, db: true, pgrest: true, defDoc: "none",
		check: func(h *Handler) error { return checkNames("db_plan_analyze_roles", h.DBPlanAnalyzeRoles) },
		doc: "the roles whose plans may ask for `options=analyze`, which runs the statement and counts the rows " +
			"row-level security hides; any other role's is 403 `PGRST192`"},
	{name: "db_prepared_statements", kind: kindBool, db: true, def: true,
		doc: "prepare and reuse statements; `false` behind PgBouncer in transaction mode"},
	{name: "db_tx_end", kind: kindString, db: true, def: string(executor.TxCommit),
		enum: []string{string(executor.TxCommit), string(executor.TxCommitAllowOverride),
			string(executor.TxRollback), string(executor.TxRollbackAllowOverride)},
		doc: "how each request's transaction ends (the `-allow-override` forms let `Prefer: tx=commit|rollback` choose); " +
			"a rollback first checks deferred constraints, so a violation is the same 409 as at commit"},
	{name: "db_channel", kind: kindString, def: "pgrst",
		doc: "LISTEN channel for `NOTIFY pgrst, 'reload schema'`"},
	{name: "db_channel_enabled", kind: kindBool, def: true,
		doc: "turn that listener on or off"},
	{name: "db_channel_uri", kind: kindString, secret: secretConnString, pgrest: true, defDoc: "`db_uri`",
		doc: "where that listener connects, when not through `db_uri` (behind PgBouncer in transaction mode; see Scaling out)"},
	{name: "jwt_secret", kind: kindString, db: true, secret: secretKey, atFile: true,
		doc: "HMAC passphrase, JWK, JWKS, `@path` to a file holding one, or the `https://` URL of a JWKS"},
	{name: "jwt_secret_is_base64", aliases: []string{"secret_is_base64"}, kind: kindBool, db: true, def: false,
		doc: "the passphrase is base64-encoded"},
	{name: "jwt_aud", kind: kindString, db: true,
		doc: "audience the token's `aud` must match"},
	{name: "jwt_role_claim_key", aliases: []string{"role_claim_key", "db_role_claim_key"}, kind: kindString, db: true, def: "$.role",
		doc: "RFC 9535 JSONPath query of the role in the claims, with PostgREST v16's one filter function `search()`; " +
			"PostgREST 14's syntax still works, with a deprecation warning at start; see Tokens from an identity provider"},
	{name: "jwt_cache_max_entries", kind: kindInt, db: true, def: 1000,
		check: func(h *Handler) error {
			if h.JWTCacheMaxEntries != nil && *h.JWTCacheMaxEntries < 0 {
				return fmt.Errorf("jwt_cache_max_entries: must be 0 (no cache) or more, got %d", *h.JWTCacheMaxEntries)
			}
			return nil
		},
		doc: "size of the verified-token cache; 0 turns it off"},
	{name: "db_legacy_claims", kind: kindString, pgrest: true, def: executor.LegacyClaimsAuto,
		enum: []string{executor.LegacyClaimsAuto, executor.LegacyClaimsTrue, executor.LegacyClaimsFalse},
		doc:  "one `request.jwt.claim.<name>` setting per claim instead of `request.jwt.claims` (auto: PostgreSQL < 14)"},
	{name: "openapi_mode", kind: kindString, db: true, def: executor.OpenAPIFollowPrivileges,
		enum: []string{executor.OpenAPIFollowPrivileges, executor.OpenAPIIgnorePrivileges, executor.OpenAPIDisabled},
		doc:  "what the API root describes"},
	{name: "openapi_server_proxy_uri", kind: kindString, db: true,
		check: func(h *Handler) error {
			if h.OpenAPIServerProxyURI != "" {
				u, err := url.Parse(h.OpenAPIServerProxyURI)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					return fmt.Errorf("openapi_server_proxy_uri: must be an absolute http or https URL, got %q", h.OpenAPIServerProxyURI)
				}
			}
			return nil
		},
		doc: "the server address the API description names"},
	{name: "openapi_version", kind: kindString, pgrest: true, def: openapi.Version20, defElsewhere: true,
		enum: []string{openapi.Version20, openapi.Version31},
		doc:  "the version of the API description: Swagger 2.0 as PostgREST, or OpenAPI 3.1.0 with the same content"},
	{name: "app_settings", kind: kindAppSettings, secret: secretKey,
		check: func(h *Handler) error {
			for name := range h.AppSettings {
				if err := checkSettingName(name); err != nil {
					return fmt.Errorf("app_settings: %w", err)
				}
			}
			return nil
		},
		doc: "settings set with `set_config` on every request: PostgREST's `app.settings.<name> <value>`, " +
			"or `app_settings name=value...`, or an `app_settings` block of `name value` lines"},
	{name: "server_timing_enabled", kind: kindBool, db: true, def: false,
		doc: "add a `Server-Timing` header to responses"},
	{name: "max_body_size", kind: kindSize, pgrest: true, def: executor.DefaultMaxBodySize,
		check: func(h *Handler) error {
			if h.MaxBodySize < 0 {
				return fmt.Errorf("max_body_size: must be more than 0 bytes, got %d", h.MaxBodySize)
			}
			return nil
		},
		doc: "largest request body, such as `10MB` or `1MiB`; larger is 413 `PGRST190`"},
	{name: "server_cors_allowed_origins", kind: kindList, db: true, defDoc: "every origin",
		check: func(h *Handler) error { return checkCORSOrigins(h.ServerCORSAllowedOrigins) },
		doc:   "origins browsers may call from, as arguments or PostgREST's comma list (see CORS below)"},

	// Settings
	{name: "client_error_verbosity", kind: kindString, db: true, def: verbosityVerbose,
		enum: []string{verbosityVerbose, verbosityMinimal},
		doc:  "`minimal` writes errors with code and message only"},
	{name: "db_config", kind: kindBool, def: true,
		doc: "read the in-database configuration: see below"},
	{name: "db_pre_config", kind: kindString,
		doc: "function called before the in-database settings are read"},
	{name: "db_root_spec", aliases: []string{"root_spec"}, kind: kindString, db: true,
		doc: "a function answering `GET /`"},
	{name: "db_hoisted_tx_settings", kind: kindList, empty: emptyIsNoneInCaddyfile, db: true,
		def: executor.DefaultHoistedTxSettings, defElsewhere: true,
		check: func(h *Handler) error { return noBlankItem("db_hoisted_tx_settings", "name", h.DBHoistedTxSettings) },
		doc:   "the settings of a function's `SET` clauses set for the whole transaction of its call; `\"\"` for none"},
	{name: "db_pool_max_lifetime", kind: kindDuration, def: caddy.Duration(1800 * time.Second),
		doc: "how long a pool connection lives before it is replaced"},
	{name: "db_pool_max_idletime", aliases: []string{"db_pool_timeout"}, kind: kindDuration, def: caddy.Duration(30 * time.Second),
		doc: "how long a pool connection may sit idle before it is closed"},
	{name: "db_pool_automatic_recovery", kind: kindBool, def: true,
		doc: "`false` stops the listener from reconnecting once its connection is lost; requests still open new pool " +
			"connections (PostgREST would exit; pgrest does not stop Caddy)"},
	{name: "jwt_cache_max_lifetime", kind: kindDurationOrZero, db: true, defDoc: "`0`",
		doc: "a cached token is verified again after this long; 0: until it expires"},
	{name: "log_level", kind: kindString, defDoc: "Caddy's",
		enum: []string{"crit", "error", "warn", "info", "debug"},
		doc:  "the least level of pgrest's log (within Caddy's `log` level)"},
	{name: "log_query", kind: kindBool, def: false,
		doc: "log each request's SQL, without values, at `log_level`"},
	{name: "openapi_security_active", kind: kindBool, db: true, def: false,
		doc: "add the JWT security definition to the API description"},
	{name: "server_trace_header", kind: kindString, db: true,
		check: func(h *Handler) error {
			if h.ServerTraceHeader != "" && !isHeaderName(h.ServerTraceHeader) {
				return fmt.Errorf("server_trace_header: %q is not a header name", h.ServerTraceHeader)
			}
			return nil
		},
		doc: "the named request header is echoed on the response"},
	{name: "url_use_legacy_target_names", kind: kindBool, db: true, def: true,
		doc: "a filter, order or limit may name an aliased embed by its relation, with a deprecation " +
			"`Warning: 299 pgrest \"…\"` header; `false` makes that 400 `PGRST108`"},

	// ReplicaSettings
	{name: "db_replicas", kind: kindURIs, secret: secretConnString, atFile: true, pgrest: true, defDoc: "none",
		check: func(h *Handler) error { return noBlankItem("db_replicas", "connection string", h.DBReplicas) },
		doc:   "connection strings of read replicas, for the authenticator, separated by spaces; reads run on them (see Read replicas)"},
	{name: "db_replica_max_lag", kind: kindDuration, pgrest: true,
		def: caddy.Duration(replicas.DefaultMaxLag), defElsewhere: true,
		doc: "a replica further behind the primary serves no reads"},
	{name: "db_replica_check_interval", kind: kindDuration, pgrest: true,
		def: caddy.Duration(replicas.DefaultCheckInterval), defElsewhere: true,
		doc: "how often each replica's health and lag are checked"},
	{name: "rate_limit", kind: kindRateLimit, pgrest: true, defDoc: "none",
		check: func(h *Handler) error {
			_, err := ratelimit.CompileAll(h.RateLimits)
			return err
		},
		doc: "a rate limit: `rate_limit <name> { key ...; rate 100/s; burst 20; kinds ...; quota_claim ... }`, " +
			"once per limit; over it is 429 `PGRST193`; a role's quota is its `pgrst.rate_limit.<name>` setting, " +
			"and one that does not parse is a startup error naming the setting and the role (see Rate limits)"},
	{name: "rate_limit_redis", kind: kindString, secret: secretKey, pgrest: true, defDoc: "each node's memory",
		check: func(h *Handler) error {
			if h.RateLimitRedis != "" && len(h.RateLimits) == 0 {
				return fmt.Errorf("rate_limit_redis: set, but no rate_limit is defined")
			}
			return nil
		},
		doc: "Redis URL `redis://[:password@]host:port/db` the limits are counted in, shared by every node naming it"},
	{name: "rate_limit_redis_failure", kind: kindString, pgrest: true, def: redisFailOpen,
		enum: []string{redisFailOpen, redisFailClosed},
		doc:  "what requests get while Redis cannot be reached: `open` goes through uncounted, `closed` is 503 `PGRST194`"},

	// RealtimeSettings
	{name: "realtime_enabled", kind: kindBool, pgrest: true, def: false,
		doc: "serve Supabase Realtime's WebSocket protocol at `realtime_path`, from the same pool and token verifier (see Realtime)"},
	{name: "realtime_path", kind: kindString, pgrest: true, def: realtime.DefaultPath,
		check: checkRealtimePath,
		doc:   "the socket's path as the handler sees it; supabase-js connects to `<url>/realtime/v1/websocket`"},
	{name: "realtime_publication", kind: kindString, pgrest: true, defDoc: "none",
		doc: "an existing publication whose tables' changes `postgres_changes` serves; without it `postgres_changes` joins are refused"},
	{name: "realtime_node_name", kind: kindString, pgrest: true, defDoc: "the host name",
		doc: "this node's name, in its replication slot's name: each node on one database needs its own"},
	{name: "realtime_max_message_size", kind: kindSize, pgrest: true, def: int64(realtime.DefaultMaxMessageBytes),
		doc: "the largest message a client may send; a larger one gets the error reply"},
	{name: "realtime_queue_size", kind: kindInt, min: 1, pgrest: true, def: realtime.DefaultQueueFrames,
		doc: "messages a socket's outbound queue holds; a socket that falls further behind is disconnected"},
	{name: "realtime_max_channels", kind: kindInt, min: 1, pgrest: true, def: realtime.DefaultMaxChannels,
		doc: "the most channels one socket may join (Supabase's `max_channels_per_client`)"},
	{name: "realtime_resume_window", kind: kindDuration, pgrest: true, def: caddy.Duration(realtime.DefaultResumeWindow),
		doc: "how long a client whose socket dropped may rejoin and get the `postgres_changes` it missed, on any node (see Realtime)"},

	// PostgREST's parameters whose concern is Caddy's.
	{name: "admin_server_host", caddy: "pgrest has no admin server of its own: Caddy's admin endpoint is the `admin` global option, " +
		"and a health check is a route such as `respond /live 200` beside pgrest"},
	{name: "admin_server_port", caddy: "pgrest has no admin server of its own: Caddy's admin endpoint is the `admin` global option, " +
		"and a health check is a route such as `respond /live 200` beside pgrest"},
	{name: "admin_server_unix_socket", caddy: "pgrest has no admin server of its own: Caddy's admin endpoint is the `admin` global option " +
		"(`admin unix//path/to/socket`)"},
	{name: "admin_server_unix_socket_mode", caddy: "pgrest has no admin server of its own: Caddy's admin endpoint is the `admin` global option " +
		"(`admin unix//path/to/socket|0660`)"},
	{name: "server_host", caddy: "Caddy binds the listener: put the host in the site address (`http://127.0.0.1:3000 { ... }`) or use the `bind` directive"},
	{name: "server_port", caddy: "Caddy binds the listener: put the port in the site address (`:3000 { ... }`)"},
	{name: "server_reuseport", caddy: "Caddy owns the listener and shares it across config reloads itself; there is nothing to set"},
	{name: "server_unix_socket", caddy: "Caddy binds the listener: use `bind unix//path/to/socket` in the site block"},
	{name: "server_unix_socket_mode", caddy: "Caddy binds the listener: give the mode with the socket, `bind unix//path/to/socket|0660`"},
}

// checkTogether are the checks that name several parameters at once,
// run after those of the table, with the messages they always had.
func (h *Handler) checkTogether() error {
	if h.DBPoolMaxLifetime < 0 || h.DBPoolMaxIdletime < 0 || h.JWTCacheMaxLifetime < 0 {
		return fmt.Errorf("db_pool_max_lifetime, db_pool_max_idletime and jwt_cache_max_lifetime must not be negative")
	}
	if h.DBReplicaMaxLag < 0 || h.DBReplicaCheckInterval < 0 {
		return fmt.Errorf("db_replica_max_lag and db_replica_check_interval must not be negative")
	}
	return nil
}
