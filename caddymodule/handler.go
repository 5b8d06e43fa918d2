package caddymodule

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor"
	"github.com/pgrest/caddy-pgrest/executor/dbpool"
	"github.com/pgrest/caddy-pgrest/executor/replicas"
	"github.com/pgrest/caddy-pgrest/executor/schemasource"
	"github.com/pgrest/caddy-pgrest/realtime"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Handler serves a PostgreSQL database as a REST API compatible with
// PostgREST. It is a terminal handler: it answers every request it is
// given and never calls the next handler in the chain.
//
// The fields are PostgREST's configuration parameters with `-` replaced by
// `_`. db_uri, jwt_secret, jwt_aud and the values of app_settings may hold
// Caddy placeholders such as `{env.PGREST_JWT_SECRET}` or
// `{file./run/secrets/jwt}`; they are resolved when the handler is
// provisioned, so secrets never need to appear in the JSON config.
type Handler struct {
	// The PostgreSQL connection string of the authenticator role: a URI
	// (`postgres://user:pw@host:5432/db`) or keyword/value pairs. Required.
	DBURI string `json:"db_uri,omitempty"`

	// The schemas exposed through the API. The first one is the default;
	// clients pick another with the Accept-Profile and Content-Profile
	// headers. At least one is required.
	DBSchemas []string `json:"db_schemas,omitempty"`

	// The role requests without a token run as. Empty disables anonymous
	// access: such requests are refused with 401 PGRST302.
	DBAnonRole string `json:"db_anon_role,omitempty"`

	// A function, optionally schema-qualified, called after the role switch
	// and before the main statement of every request.
	DBPreRequest string `json:"db_pre_request,omitempty"`

	// Schemas added to search_path after the request's schema. Default:
	// `["public"]`; an empty list adds none.
	DBExtraSearchPath []string `json:"db_extra_search_path,omitzero"`

	// The most rows a read returns. 0 or absent means no cap.
	DBMaxRows int64 `json:"db_max_rows,omitempty"`
	// DBMaxCost is db_max_cost: the query cost guard's limit for roles
	// without one of their own; 0 for none.
	DBMaxCost int64 `json:"db_max_cost,omitempty"`

	// The most connections the pool opens. Default: 10.
	DBPool int `json:"db_pool,omitempty"`

	// How long a request waits for a pool connection before it is answered
	// with 504 PGRST003. Default: 10s.
	DBPoolAcquisitionTimeout caddy.Duration `json:"db_pool_acquisition_timeout,omitempty"`

	// Allows aggregate functions (count(), sum(), ...) in select.
	DBAggregatesEnabled bool `json:"db_aggregates_enabled,omitempty"`

	// Answers Accept: application/vnd.pgrst.plan with the EXPLAIN of the
	// request's statement (writes are rolled back). Default: false.
	DBPlanEnabled bool `json:"db_plan_enabled,omitempty"`

	// The roles whose plans may ask for options=analyze, which runs the
	// statement and shows what it met, rows that row-level security hides
	// from the role counted in "Rows Removed by Filter". Names are
	// compared exactly with the request's role. Default: none; any other
	// role's analyze is refused with 403 PGRST192.
	DBPlanAnalyzeRoles []string `json:"db_plan_analyze_roles,omitempty"`

	// Prepares statements and reuses them per connection. Default: true;
	// set it to false behind PgBouncer in transaction pooling mode.
	DBPreparedStatements *bool `json:"db_prepared_statements,omitempty"`

	// How each request's transaction ends: `commit` (default),
	// `commit-allow-override`, `rollback` or `rollback-allow-override`. The
	// -allow-override forms let a request choose with `Prefer: tx=...`.
	DBTxEnd string `json:"db_tx_end,omitempty"`

	// The channel listened on for schema cache reloads
	// (`NOTIFY pgrst, 'reload schema'`). Default: `pgrst`.
	DBChannel string `json:"db_channel,omitempty"`

	// Listens on db_channel. Default: true.
	DBChannelEnabled *bool `json:"db_channel_enabled,omitempty"`

	// Where the db_channel listener connects, when not through db_uri
	// (the default): behind PgBouncer in transaction pooling mode, whose
	// server connections change hands at every transaction, LISTEN needs
	// a session of its own, straight to PostgreSQL. Placeholders allowed.
	DBChannelURI string `json:"db_channel_uri,omitempty"`

	// The key tokens are verified with: an HMAC passphrase (at least 32
	// characters), a one-line JWK or JWKS, `@path` naming a file that
	// holds any of these, or an `https://` URL of a JWKS (as identity
	// providers publish them), fetched at start and refreshed as its
	// Cache-Control says and when a token names a key it lacks. Empty
	// means tokens are refused with 500 PGRST300.
	JWTSecret string `json:"jwt_secret,omitempty"`

	// Says jwt_secret is base64 encoded.
	JWTSecretIsBase64 bool `json:"jwt_secret_is_base64,omitempty"`

	// When set, a token's aud claim must contain this audience.
	JWTAud string `json:"jwt_aud,omitempty"`

	// The JSON path of the role claim inside the token's claims: an RFC
	// 9535 query such as `$.role` (default), `$['https://example.com/role']`
	// or `$.roles[?(@ == 'author')]`, or the deprecated syntax of PostgREST
	// 14 (`.role`), which is logged as such at start.
	JWTRoleClaimKey string `json:"jwt_role_claim_key,omitempty"`

	// How many verified tokens are cached. Default: 1000; 0 disables the
	// cache.
	JWTCacheMaxEntries *int `json:"jwt_cache_max_entries,omitempty"`

	// How claims reach SQL: `auto` (default) sets request.jwt.claims on
	// PostgreSQL 14 and later and one request.jwt.claim.<name> per claim
	// before; `true` always uses the per-claim form, `false` never does.
	DBLegacyClaims string `json:"db_legacy_claims,omitempty"`

	// What the API root serves: `follow-privileges` (default) describes
	// what the request's role may use, `ignore-privileges` describes
	// everything, `disabled` answers 404 PGRST126.
	OpenAPIMode string `json:"openapi_mode,omitempty"`

	// The server address the API description names, such as
	// `https://api.example.com/rest/v1`.
	OpenAPIServerProxyURI string `json:"openapi_server_proxy_uri,omitempty"`

	// The version of the API description at the root: `2.0` (Swagger
	// 2.0, as PostgREST writes it; the default) or `3.1` (OpenAPI 3.1.0,
	// with the same content).
	OpenAPIVersion string `json:"openapi_version,omitempty"`

	// Settings set with set_config in every request's transaction, by
	// name, such as `"app.settings.jwt_secret": "{env.JWT_SECRET}"`. Names
	// must be custom (dotted) settings outside request.* and response.*,
	// which pgrest sets itself.
	AppSettings map[string]string `json:"app_settings,omitempty"`

	// Adds a Server-Timing header to responses.
	ServerTimingEnabled bool `json:"server_timing_enabled,omitempty"`

	// The largest request body accepted, in bytes. A larger one is
	// refused with 413 PGRST190: at once when its Content-Length says so,
	// else as soon as that many bytes have streamed in. Default: 10MiB
	// (10485760).
	MaxBodySize int64 `json:"max_body_size,omitempty"`

	// The origins browsers may call from, such as
	// `https://app.example.com`. Empty (default) allows every origin with
	// `Access-Control-Allow-Origin: *`; otherwise a listed origin is echoed
	// with credentials allowed, any other gets no CORS headers, and every
	// answer says `Vary: Origin`. `null` may not be listed.
	ServerCORSAllowedOrigins []string `json:"server_cors_allowed_origins,omitempty"`

	Settings
	ReplicaSettings
	RateLimitSettings
	RealtimeSettings

	logger  *zap.Logger
	pool    *sharedPool
	poolKey poolKey
	// replicas are db_replicas' shared set, nil without replicas.
	replicas    *replicas.Set
	replicasKey replicasKey
	// live holds what serves requests: the token verifier, the executor
	// and the schema cache, rebuilt when the in-database configuration
	// changes.
	live *liveConfig
	// realtime serves the realtime socket (realtime_enabled), nil
	// otherwise; changeFeedClose stops its change feed.
	realtime        *realtime.Server
	changeFeedClose func() error
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.pgrest",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision applies defaults, resolves placeholders, takes the shared
// pool, reads the in-database configuration and starts the executor.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	if level, ok := zapLevel(h.LogLevel); ok {
		h.logger = h.logger.WithOptions(zap.IncreaseLevel(level))
	}
	h.applyDefaults()

	// Caddy validates after provisioning; checking first means a bad config
	// is refused before it takes a reference to a shared pool.
	if err := h.Validate(); err != nil {
		return err
	}

	repl := caddy.NewReplacer()
	dbURI, err := resolveSecret(repl, "db_uri", h.DBURI)
	if err != nil {
		return err
	}
	channelURI, err := resolveSecret(repl, "db_channel_uri", h.DBChannelURI)
	if err != nil {
		return err
	}
	if dbURI, err = readAtFile("db_uri", dbURI); err != nil {
		return err
	}
	secret, err := resolveSecret(repl, "jwt_secret", h.JWTSecret)
	if err != nil {
		return err
	}
	aud, err := resolveSecret(repl, "jwt_aud", h.JWTAud)
	if err != nil {
		return err
	}
	settings, err := h.appSettings(repl)
	if err != nil {
		return err
	}

	if err := registerMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	if err := registerReplicaMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}

	// Only now is the authenticator known: db_uri's placeholders are
	// resolved, and pgx fills in a user the URI leaves out.
	auth, err := executor.AuthenticatorOfURI(dbURI)
	if err != nil {
		return err
	}

	pc := dbpool.Config{URI: dbURI, MaxConns: int32(h.DBPool),
		MaxConnLifetime: time.Duration(h.DBPoolMaxLifetime), MaxConnIdleTime: time.Duration(h.DBPoolMaxIdletime)}
	key := poolKeyFor(pc)
	val, _, err := pools.LoadOrNew(key, func() (caddy.Destructor, error) {
		// The pool outlives this config (the next config takes it over on
		// reload), so it does not take the config's context; the usage
		// pool's Destruct ends it.
		p, err := dbpool.New(context.Background(), pc)
		if err != nil {
			return nil, err
		}
		return &sharedPool{Pool: p}, nil
	})
	if err != nil {
		return fmt.Errorf("creating connection pool: %w", err)
	}
	h.pool, h.poolKey = val.(*sharedPool), key
	replicas, rkey, err := h.takeReplicas(repl, dbURI, auth, pc, h.logger)
	if err != nil {
		_, _ = pools.Delete(key)
		h.pool = nil
		return err
	}
	h.replicas, h.replicasKey = replicas, rkey

	base := *h
	base.JWTSecret, base.JWTAud = secret, aud
	h.live = &liveConfig{base: base, configuredJWTSecret: h.JWTSecret, appSettings: settings,
		dbURI: dbURI, channelURI: channelURI, authenticator: auth,
		pool: h.pool, poolKey: key, replicas: replicas, logger: h.logger, ctx: ctx}
	eff := &base
	reached := true
	if *h.DBConfig {
		// PostgREST reads its in-database configuration before it serves.
		// One that is not valid stops pgrest, naming the setting, where
		// PostgREST logs it and serves on its file's configuration (the
		// README's differences); on a reload the configuration in force
		// stays (reloadConfig), as in PostgREST. A
		// database that cannot be reached now is not fatal: the listener
		// reads the configuration again once it connects.
		var unread *dbConfigReadError
		if eff, err = h.live.effective(); errors.As(err, &unread) {
			h.logger.Warn("starting with the Caddyfile's configuration only", zap.Error(err))
			eff, reached, err = &base, false, nil
		}
	}
	if reached && err == nil {
		// Not again when the configuration could not be read: a database
		// that is down would hold the start up twice.
		err = h.live.checkRoleSettings()
	}
	var rt *runtime
	if err == nil {
		rt, err = h.live.build(eff)
	}
	if err != nil {
		_, _ = pools.Delete(key)
		_ = releaseReplicas(h.replicas, h.replicasKey)
		h.pool, h.live, h.replicas = nil, nil, nil
		return err
	}
	h.live.current.Store(rt)
	if err := h.startRealtime(); err != nil {
		_ = release(rt)
		_, _ = pools.Delete(key)
		_ = releaseReplicas(h.replicas, h.replicasKey)
		h.pool, h.live, h.replicas = nil, nil, nil
		return err
	}
	if !rt.sourceCreated {
		// A config reload reads the schema again, as a restart would; the
		// cache the source holds keeps serving meanwhile. A source made
		// for this config is loading already: a second load would only
		// repeat the first, and retire the statements prepared meanwhile.
		// (A second pgrest handler of the same config on the same pool
		// and schemas takes the source over too, and reloads it once.)
		rt.source.Reload()
	}
	rt.executor.Start(ctx)
	watchReloadSignals(ctx, h.logger, h.live.reloadSchemaCache)
	if *h.DBConfig {
		watchConfigSignals(ctx, h.logger, h.live.reloadConfig)
	}
	register(h)
	return nil
}

// takeSource takes a reference to the schema source of schemas on pool;
// created says the source is new, and its first load already running.
func takeSource(pool *sharedPool, key poolKey, dbURI string, schemas []string, acquireTimeout time.Duration,
	logger *zap.Logger) (src *sharedSource, skey sourceKey, created bool, err error) {
	skey = sourceKeyFor(key, schemas)
	content := contentKeyFor(dbURI, schemas)
	// Looked up before LoadOrNew, which must not be re-entered from its
	// constructor.
	seed := sourceWithContent(content)
	val, loaded, err := sources.LoadOrNew(skey, func() (caddy.Destructor, error) {
		// Like the pool, the schema cache outlives this config: the next
		// config with the same pool and schemas serves it at once. A
		// config with a new pool for the same database and schemas starts
		// with the cache of the old one, still running until the new
		// config is in place.
		src := schemasource.New(pool.Pool, schemas, acquireTimeout, logger)
		src.SetObserver(metricsObserver{})
		if seed != nil {
			src.Seed(seed.Source)
		}
		src.Start(context.Background())
		return &sharedSource{Source: src, content: content}, nil
	})
	if err != nil {
		return nil, skey, false, fmt.Errorf("creating the schema cache: %w", err)
	}
	return val.(*sharedSource), skey, !loaded, nil
}

// readAtFile reads the value of field from a file when it is @path, as
// PostgREST does for db-uri; the file's surrounding white space is
// dropped.
func readAtFile(field, v string) (string, error) {
	path, ok := strings.CutPrefix(v, "@")
	if !ok {
		return v, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: reading %s: %w", field, path, err)
	}
	out := strings.TrimSpace(string(b))
	if out == "" {
		return "", fmt.Errorf("%s: %s is empty", field, path)
	}
	return out, nil
}

// catalogSchemas are PostgreSQL's own schemas, which PostgREST v16
// refuses to expose, in the order it checks them.
var catalogSchemas = []string{"pg_catalog", "information_schema"}

// checkNoCatalogSchema refuses db_schemas naming pg_catalog or
// information_schema, in PostgREST v16's words: the catalog is no API (and
// before v16 such a schema only failed later, request by request, with
// PGRST205).
func checkNoCatalogSchema(schemas []string) error {
	for _, c := range catalogSchemas {
		if slices.Contains(schemas, c) {
			return fmt.Errorf("db_schemas does not allow schema: '%s'", c)
		}
	}
	return nil
}

// checkNames refuses empty and repeated names in a list of schemas or
// roles.
func checkNames(field string, names []string) error {
	if err := noBlankItem(field, "name", names); err != nil {
		return err
	}
	for i, n := range names {
		if slices.Contains(names[:i], n) {
			return fmt.Errorf("%s: %q is listed twice", field, n)
		}
	}
	return nil
}

// noBlankItem refuses a list setting with an empty or blank item, naming
// the setting and the item by its place ("db_replicas: connection string
// 2 is empty"): a stray separator would otherwise pass as a value.
func noBlankItem(setting, item string, items []string) error {
	for i, s := range items {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("%s: %s %d is empty", setting, item, i+1)
		}
	}
	return nil
}

// checkSettingName accepts PostgreSQL custom setting names (two or more
// dotted parts) that pgrest does not set itself.
func checkSettingName(name string) error {
	if name == "" || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || !strings.Contains(name, ".") {
		return fmt.Errorf("setting name %q must have the form prefix.name, such as app.settings.name", name)
	}
	if strings.HasPrefix(name, "request.") || strings.HasPrefix(name, "response.") {
		return fmt.Errorf("setting name %q is reserved: pgrest sets request.* and response.* itself", name)
	}
	return nil
}

// resolvePlaceholders resolves the Caddy placeholders in a configuration
// value. An inline JSON object (a JWK, a JWKS, a JSON app setting) has
// braces that are not placeholders, so it is taken as it is. Unknown
// placeholders are errors rather than silently emptied, so a typo such as
// {evn.SECRET} cannot become a key.
func resolvePlaceholders(repl *caddy.Replacer, raw string) (string, error) {
	if t := strings.TrimSpace(raw); strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		return raw, nil
	}
	return repl.ReplaceOrErr(raw, false, true)
}

// resolveSecret resolves the placeholders of db_uri, jwt_secret or jwt_aud.
// A value that resolves to nothing is an error: the variable or file it
// names is missing, and an empty value would silently change what the
// field means.
func resolveSecret(repl *caddy.Replacer, field, raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	v, err := resolvePlaceholders(repl, raw)
	if err != nil {
		return "", fmt.Errorf("%s: %w", field, err)
	}
	if v == "" {
		return "", fmt.Errorf("%s: %q resolved to an empty value; is the environment variable or file it names set?", field, raw)
	}
	return v, nil
}

// appSettings returns app_settings sorted by name, values resolved, so
// every request sets them in the same order.
func (h *Handler) appSettings(repl *caddy.Replacer) ([]executor.Setting, error) {
	if len(h.AppSettings) == 0 {
		return nil, nil
	}
	names := make([]string, 0, len(h.AppSettings))
	for name := range h.AppSettings {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make([]executor.Setting, 0, len(names))
	for _, name := range names {
		v, err := resolvePlaceholders(repl, h.AppSettings[name])
		if err != nil {
			return nil, fmt.Errorf("app_settings: %s: %w", name, err)
		}
		out = append(out, executor.Setting{Name: name, Value: v})
	}
	return out, nil
}

// ServeHTTP answers CORS preflights (before authentication: a browser sends
// no token with one), then authenticates the request and hands it to the
// executor. The token is checked before any pool connection is taken.
// Contract errors are written here, never returned to Caddy, whose error
// routes would replace the JSON body.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	rt := h.live.current.Load()
	if h.serveRealtime(w, r) {
		return nil
	}
	if serveCORS(w, r, rt.corsOrigins) {
		return nil
	}
	if rt.traceHeader != "" {
		if v := r.Header.Values(rt.traceHeader); len(v) > 0 {
			w.Header()[rt.traceHeader] = slices.Clone(v)
		}
	}
	if rt.minimalErrors {
		r = apierr.WithMinimalErrors(r)
	}
	var start time.Time
	if rt.timing {
		start = time.Now()
	}
	id, aerr := rt.verifier.Authenticate(r.Header.Get("Authorization"))
	if rt.timing {
		r = executor.WithAuthDuration(r, time.Since(start))
	}
	if aerr != nil {
		if ce := h.logger.Check(zap.DebugLevel, "request not authenticated"); ce != nil {
			ce.Write(zap.String("code", aerr.Code), zap.String("message", aerr.Message))
		}
		apierr.Write(w, r, aerr)
		recordOutcome(r, id, executor.Outcome{Action: executor.ActionOf(r), Status: aerr.Status, Code: aerr.Code})
		return nil
	}
	if rt.limiter != nil && limitRequest(w, r, rt, id) {
		return nil
	}
	outcome := rt.executor.Serve(w, r, id)
	recordOutcome(r, id, outcome)
	if outcome.Aborted {
		// A streamed body broke off after its header: the connection
		// (HTTP/1.1) or the stream (HTTP/2) is cut, so that the client
		// sees an incomplete response rather than a short one.
		panic(http.ErrAbortHandler)
	}
	return nil
}

// Cleanup releases this handler's reference to the shared pool; the pool
// closes when its last user is cleaned up. Caddy cancels the config's
// context first, so the executor's background work has been told to stop.
func (h *Handler) Cleanup() error {
	unregister(h)
	h.stopRealtime()
	// h.live stays set: requests still running read it (close makes a
	// second Cleanup a no-op).
	if h.live != nil {
		if err := h.live.close(); err != nil {
			return err
		}
	}
	if h.replicas != nil {
		rs := h.replicas
		h.replicas = nil
		if err := releaseReplicas(rs, h.replicasKey); err != nil {
			return err
		}
	}
	if h.pool == nil {
		return nil
	}
	h.pool = nil
	if _, err := pools.Delete(h.poolKey); err != nil {
		return fmt.Errorf("closing connection pool: %w", err)
	}
	return nil
}

// pools holds the connection pools shared by handlers with the same
// dbpool.Config, across handlers and across config reloads: Caddy provisions
// the new config before it cleans up the old one, so the reference count
// never drops to zero on a reload and the pool stays open.
var pools = caddy.NewUsagePool()

// poolKey identifies a pool: a digest of the dbpool.Config, so the
// connection string's password is not kept as a map key.
type poolKey [sha256.Size]byte

func poolKeyFor(pc dbpool.Config) poolKey {
	h := sha256.New()
	_ = binary.Write(h, binary.BigEndian, pc.MaxConns)
	_ = binary.Write(h, binary.BigEndian, int64(pc.MaxConnLifetime))
	_ = binary.Write(h, binary.BigEndian, int64(pc.MaxConnIdleTime))
	h.Write([]byte(pc.URI))
	return poolKey(h.Sum(nil))
}

// sharedPool is a pool as the usage pool holds it.
type sharedPool struct {
	*pgxpool.Pool
	closed atomic.Bool
}

// Destruct closes the pool once its last user is gone. It waits for
// connections in use to be released.
func (p *sharedPool) Destruct() error {
	p.Pool.Close()
	p.closed.Store(true)
	return nil
}

// sources holds the schema caches shared by handlers with the same pool
// and schemas, across config reloads as pools are. What a schema cache
// holds depends on the database (the pool's db_uri) and db_schemas only:
// the catalog is read as the authenticator, whatever the other settings.
var sources = caddy.NewUsagePool()

// sourceKey identifies a schema source: a digest of its pool's key and
// the schemas, in order (the first is the default).
type sourceKey [sha256.Size]byte

func sourceKeyFor(pool poolKey, schemas []string) sourceKey {
	h := sha256.New()
	h.Write(pool[:])
	for _, s := range schemas {
		h.Write([]byte(s))
		h.Write([]byte{0}) // a schema name cannot hold NUL
	}
	return sourceKey(h.Sum(nil))
}

// contentKey identifies what a schema cache holds: the database (db_uri)
// and the schemas, whatever the pool.
type contentKey [sha256.Size]byte

func contentKeyFor(uri string, schemas []string) contentKey {
	h := sha256.New()
	h.Write([]byte(uri))
	h.Write([]byte{0})
	for _, s := range schemas {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return contentKey(h.Sum(nil))
}

// sourceWithContent returns a running schema source holding content, if
// there is one.
func sourceWithContent(content contentKey) *sharedSource {
	var found *sharedSource
	sources.Range(func(_, value any) bool {
		if s := value.(*sharedSource); s.content == content && !s.closed.Load() {
			found = s
			return false
		}
		return true
	})
	return found
}

// sharedSource is a schema source as the usage pool holds it.
type sharedSource struct {
	*schemasource.Source
	content contentKey
	closed  atomic.Bool
}

// Destruct stops the loader once the last handler using it is gone.
func (s *sharedSource) Destruct() error {
	s.Source.Close()
	s.closed.Store(true)
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
	_ caddyfile.Unmarshaler       = (*Handler)(nil)
	_ caddy.Destructor            = (*sharedPool)(nil)
	_ caddy.Destructor            = (*sharedSource)(nil)
)
