package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/pgrest/caddy-pgrest/executor"
	"github.com/pgrest/caddy-pgrest/executor/dbconfig"
	"github.com/pgrest/caddy-pgrest/executor/replicas"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// runtime is what serves requests under one effective configuration:
// the Caddyfile's with the in-database settings over it. A reload of the
// in-database configuration builds a new one and swaps it in; requests
// already running finish with the one they started with.
type runtime struct {
	// effective is the configuration it was built from: the Caddyfile's
	// with the in-database settings over it.
	effective *Handler
	verifier  *jwtauth.Verifier
	executor  *executor.Executor
	source    *sharedSource
	sourceKey sourceKey
	// sourceCreated says source was made for this runtime, not taken
	// over from an earlier config.
	sourceCreated bool
	// traceHeader is server_trace_header, canonical; empty for none.
	traceHeader   string
	minimalErrors bool
	timing        bool
	// corsOrigins is server_cors_allowed_origins; empty allows every
	// origin.
	corsOrigins []string
	// releaseKeys gives back the reference to the key set of a JWKS
	// URL (takeKeySet).
	releaseKeys func()
	// limiter applies the rate limits; nil without any.
	limiter *rateLimiter
}

// liveConfig holds the runtime in force and what rebuilding it takes.
type liveConfig struct {
	// base is the Caddyfile's configuration, defaults applied and
	// placeholders of jwt_secret and jwt_aud resolved.
	base Handler
	// configuredJWTSecret is jwt_secret as the Caddyfile gives it,
	// placeholders unresolved: what the admin API shows in place of
	// base's.
	configuredJWTSecret string
	appSettings         []executor.Setting
	dbURI               string
	channelURI          string
	authenticator       string
	pool                *sharedPool
	poolKey             poolKey
	replicas            *replicas.Set
	logger              *zap.Logger
	ctx                 context.Context

	current atomic.Pointer[runtime]

	// mu orders reloads and Cleanup; closed is set by Cleanup.
	mu     sync.Mutex
	closed bool
}

// build makes the runtime of the effective configuration eff. It takes a
// reference to the schema source of eff's schemas, which release gives
// back.
func (l *liveConfig) build(eff *Handler) (*runtime, error) {
	if err := eff.Validate(); err != nil {
		return nil, err
	}
	if eff.DBAnonRole != "" && executor.RunsAsAuthenticator(eff.DBAnonRole, l.authenticator) {
		// PostgREST starts so (postgrest-js's own test setup uses the
		// superuser for both); tokens naming the authenticator are still
		// refused per request.
		l.logger.Warn("db_anon_role is the authenticator: anonymous requests run as the authenticator itself, "+
			"with every privilege it has; name a role the authenticator is granted instead",
			zap.String("db_anon_role", eff.DBAnonRole), zap.String("authenticator", l.authenticator))
	}
	remoteKeys, releaseKeys, err := takeKeySet(eff.JWTSecret, l.logger)
	if err != nil {
		return nil, fmt.Errorf("configuring token verification: %w", err)
	}
	verifier, err := jwtauth.New(jwtauth.Config{
		RemoteKeys:       remoteKeys,
		OnCacheLookup:    jwtCacheLookup,
		Secret:           eff.JWTSecret,
		SecretIsBase64:   eff.JWTSecretIsBase64,
		Audience:         eff.JWTAud,
		RoleClaimKey:     eff.JWTRoleClaimKey,
		CacheMaxEntries:  *eff.JWTCacheMaxEntries,
		CacheMaxLifetime: time.Duration(eff.JWTCacheMaxLifetime),
		AnonRole:         eff.DBAnonRole,
	})
	if err != nil {
		releaseKeys()
		return nil, fmt.Errorf("configuring token verification: %w", err)
	}
	l.warnOfDeprecatedRoleClaimKey(verifier)
	redisURL, err := resolveRedisURL(eff)
	if err != nil {
		releaseKeys()
		return nil, err
	}
	limiter, err := buildRateLimiter(eff, redisURL, l.poolKey, l.logger)
	if err != nil {
		releaseKeys()
		return nil, err
	}
	closeLimiter := func() {
		if limiter != nil {
			limiter.close()
		}
	}
	src, skey, created, err := takeSource(l.pool, l.poolKey, l.dbURI, eff.DBSchemas,
		time.Duration(eff.DBPoolAcquisitionTimeout), l.logger)
	if err != nil {
		releaseKeys()
		closeLimiter()
		return nil, err
	}
	queryLevel, _ := zapLevel(eff.LogLevel)
	cfg := executor.Config{
		Observer:               metricsObserver{},
		OpenAPIVersion:         eff.OpenAPIVersion,
		Schemas:                eff.DBSchemas,
		PreRequest:             eff.DBPreRequest,
		ExtraSearchPath:        eff.DBExtraSearchPath,
		MaxRows:                eff.DBMaxRows,
		MaxCost:                eff.DBMaxCost,
		PoolAcquisitionTimeout: time.Duration(eff.DBPoolAcquisitionTimeout),
		AggregatesEnabled:      eff.DBAggregatesEnabled,
		PlanEnabled:            eff.DBPlanEnabled,
		PlanAnalyzeRoles:       eff.DBPlanAnalyzeRoles,
		PreparedStatements:     *eff.DBPreparedStatements,
		TxEnd:                  executor.TxEnd(eff.DBTxEnd),
		Channel:                eff.DBChannel,
		ChannelEnabled:         *eff.DBChannelEnabled,
		ChannelURI:             l.channelURI,
		LegacyClaims:           eff.DBLegacyClaims,
		OpenAPIMode:            eff.OpenAPIMode,
		OpenAPIServerProxyURI:  eff.OpenAPIServerProxyURI,
		AppSettings:            l.appSettings,
		ServerTimingEnabled:    eff.ServerTimingEnabled,
		CORSAllowList:          len(eff.ServerCORSAllowedOrigins) > 0,
		MaxBodySize:            eff.MaxBodySize,
		HoistedTxSettings:      eff.DBHoistedTxSettings,
		RootSpec:               eff.DBRootSpec,
		OpenAPISecurityActive:  eff.OpenAPISecurityActive,
		NoAutomaticRecovery:    !*eff.DBPoolAutomaticRecovery,
		NoLegacyTargetNames:    !*eff.URLUseLegacyTargetNames,
		LogQuery:               eff.LogQuery,
		LogQueryLevel:          queryLevel,
		OnReloadSchema:         l.reloadSchemaCache,
		Replicas:               l.replicas,
	}
	if *l.base.DBConfig {
		cfg.OnReloadConfig = l.reloadConfig
	}
	exec, err := executor.NewShared(l.pool.Pool, src.Source, cfg, l.logger)
	if err != nil {
		_, _ = sources.Delete(skey)
		releaseKeys()
		closeLimiter()
		return nil, fmt.Errorf("creating executor: %w", err)
	}
	return &runtime{
		effective:     eff,
		verifier:      verifier,
		executor:      exec,
		source:        src,
		sourceKey:     skey,
		sourceCreated: created,
		traceHeader:   http.CanonicalHeaderKey(eff.ServerTraceHeader),
		minimalErrors: eff.ClientErrorVerbosity == verbosityMinimal,
		timing:        eff.ServerTimingEnabled,
		corsOrigins:   eff.ServerCORSAllowedOrigins,
		releaseKeys:   releaseKeys,
		limiter:       limiter,
	}, nil
}

// release gives back rt's reference to its schema source.
func release(rt *runtime) error {
	if rt == nil {
		return nil
	}
	rt.releaseKeys()
	if rt.limiter != nil {
		rt.limiter.close()
	}
	if _, err := sources.Delete(rt.sourceKey); err != nil {
		return fmt.Errorf("stopping the schema cache loader: %w", err)
	}
	return nil
}

// reloadSchemaCache reloads the schema cache of the runtime in force.
func (l *liveConfig) reloadSchemaCache() {
	if rt := l.current.Load(); rt != nil {
		rt.executor.ReloadSchemaCache()
	}
}

// reloadConfig re-reads the in-database configuration and, when it
// makes a valid configuration, puts it in force. A configuration that is
// not valid is logged and the one in force stays, as in PostgREST.
func (l *liveConfig) reloadConfig() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	eff, err := l.effective()
	if err != nil {
		l.logger.Error("reloading the in-database configuration; keeping the configuration in force", zap.Error(err))
		return
	}
	rt, err := l.build(eff)
	if err != nil {
		l.logger.Error("reloading the in-database configuration; keeping the configuration in force", zap.Error(err))
		return
	}
	old := l.current.Swap(rt)
	if err := release(old); err != nil {
		l.logger.Warn("releasing the previous configuration", zap.Error(err))
	}
	l.logger.Info("configuration reloaded", zap.Strings("schemas", eff.DBSchemas))
}

// effective reads the in-database settings and lays them over base. A
// database that could not be read is a *dbConfigReadError, told apart
// from settings that are not valid.
func (l *liveConfig) effective() (*Handler, error) {
	ctx, cancel := context.WithTimeout(l.ctx, time.Duration(l.base.DBPoolAcquisitionTimeout))
	defer cancel()
	settings, err := dbconfig.Read(ctx, l.pool.Pool, l.base.DBPreConfig, dbConfigNames())
	if err != nil {
		return nil, &dbConfigReadError{err: err}
	}
	eff, err := l.base.withDBSettings(settings)
	if err != nil {
		return nil, fmt.Errorf("in-database configuration: %w", err)
	}
	return eff, nil
}

// dbConfigReadError is an in-database configuration that could not be
// read: at start, unlike one that is not valid, it is no reason to stop.
type dbConfigReadError struct{ err error }

func (e *dbConfigReadError) Error() string {
	return "reading the in-database configuration: " + e.err.Error()
}

func (e *dbConfigReadError) Unwrap() error { return e.err }

// checkRoleSettings checks pgrest's limits among the role settings
// (pgrst.db_max_cost, pgrst.rate_limit.<name>) before anything is served:
// one that is not valid is a provisioning error naming the setting and
// the role, as an invalid Caddyfile setting is, rather than a schema load
// that fails. A database that cannot be read now is not fatal, as for the
// in-database configuration: the schema load checks them when it reads
// them.
func (l *liveConfig) checkRoleSettings() error {
	ctx, cancel := context.WithTimeout(l.ctx, time.Duration(l.base.DBPoolAcquisitionTimeout))
	defer cancel()
	err := schemacache.CheckRoleSettings(ctx, l.pool.Pool)
	var bad *schemacache.RoleSettingError
	if errors.As(err, &bad) {
		return fmt.Errorf("role setting: %w", err)
	}
	if err != nil {
		l.logger.Warn("could not check the roles' limit settings; the schema load will", zap.Error(err))
	}
	return nil
}

// close releases the runtime in force; no reload happens after it.
func (l *liveConfig) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	// The runtime stays in place: requests of this config still running
	// (Caddy cleans a config up while its last requests finish) keep
	// using it. Only its references are given back.
	return release(l.current.Load())
}

// client_error_verbosity values.
const (
	verbosityVerbose = "verbose"
	verbosityMinimal = "minimal"
)

// zapLevel maps log_level onto zap: crit keeps only what is worse than an
// error, the others are zap's levels of the same names. Empty is Info,
// the level queries are logged at when log_level is not given.
func zapLevel(level string) (zapcore.Level, bool) {
	switch level {
	case "crit":
		return zapcore.DPanicLevel, true
	case "error":
		return zapcore.ErrorLevel, true
	case "warn":
		return zapcore.WarnLevel, true
	case "info", "":
		return zapcore.InfoLevel, level != ""
	case "debug":
		return zapcore.DebugLevel, true
	}
	return zapcore.InfoLevel, false
}
