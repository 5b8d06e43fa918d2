// Package executor serves one authenticated request against PostgreSQL:
// it parses the request, plans it against the schema cache, generates SQL
// and runs everything in one role-scoped transaction, writing the response
// or a contract error. It knows nothing about Caddy.
package executor

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/schemasource"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// Executor serves requests for one handler configuration.
type Executor struct {
	cfg    Config
	pool   *pgxpool.Pool
	logger *zap.Logger

	// source loads and holds the schema cache, possibly for other
	// executors too; ownSource says this executor made it and runs it.
	source    *schemasource.Source
	ownSource bool
	// appSettingPairs are app_settings as the settings statement sets them,
	// and searchPaths each schema's search_path: the same for every
	// request, so built once.
	appSettingPairs []schemacache.Setting
	searchPaths     map[string][]byte
	// preRequest is the statement calling db_pre_request, built once;
	// its SQL is empty when none is configured.
	preRequest sqlgen.Statement
	// authenticator is the user of db_uri; no request may run as it, nor
	// as the session user the schema source learns.
	authenticator string
}

// New makes an Executor over pool, which the caller owns, with a schema
// cache of its own. It does not touch the database; call Start to begin
// loading the schema cache.
func New(pool *pgxpool.Pool, cfg Config, logger *zap.Logger) (*Executor, error) {
	return newExecutor(pool, nil, cfg, logger)
}

// NewShared makes an Executor over pool that takes its schema cache from
// source, which the caller made for the same pool and cfg.Schemas and
// runs (Start, Close).
func NewShared(pool *pgxpool.Pool, source *schemasource.Source, cfg Config, logger *zap.Logger) (*Executor, error) {
	if source == nil {
		return nil, errors.New("no schema source")
	}
	return newExecutor(pool, source, cfg, logger)
}

func newExecutor(pool *pgxpool.Pool, source *schemasource.Source, cfg Config, logger *zap.Logger) (*Executor, error) {
	if logger == nil {
		logger = zap.NewNop()
	}
	if len(cfg.Schemas) == 0 {
		return nil, errors.New("no schema to expose")
	}
	if cfg.PoolAcquisitionTimeout <= 0 {
		cfg.PoolAcquisitionTimeout = 10 * time.Second
	}
	if cfg.TxEnd == "" {
		cfg.TxEnd = TxCommit
	}
	if cfg.MaxBodySize <= 0 {
		cfg.MaxBodySize = DefaultMaxBodySize
	}
	own := source == nil
	if own {
		source = schemasource.New(pool, cfg.Schemas, cfg.PoolAcquisitionTimeout, logger)
	}
	return &Executor{
		cfg:             cfg,
		pool:            pool,
		logger:          logger,
		source:          source,
		ownSource:       own,
		appSettingPairs: variableSettings(cfg.AppSettings, nil, nil),
		searchPaths:     searchPaths(cfg.Schemas, cfg.ExtraSearchPath),
		preRequest:      preRequestStatement(cfg.PreRequest),
		authenticator:   AuthenticatorOf(pool),
	}, nil
}

// Start begins the background work: loading the schema cache (retrying
// with backoff while the database is unreachable) and, when enabled,
// listening for reload notifications. It all ends when ctx is done. A
// shared schema cache is loaded by whoever shares it (NewShared): the
// Caddy module starts a new source and reloads one an earlier config
// left, so that a source is never loaded twice for one start.
func (e *Executor) Start(ctx context.Context) {
	if e.ownSource {
		e.source.Start(ctx)
	}
	if e.cfg.ChannelEnabled && e.cfg.Channel != "" {
		go e.listen(ctx)
	}
}

// ReloadSchemaCache asks for the schema cache to be rebuilt. The current
// cache keeps serving until the new one is ready.
func (e *Executor) ReloadSchemaCache() {
	e.source.Reload()
}

// Serve answers r as identity id and says what it did: the request's
// action and schema, the response's status and, for an error, its code.
func (e *Executor) Serve(w http.ResponseWriter, r *http.Request, id jwtauth.Identity) Outcome {
	var timing *serverTiming
	var mark time.Time
	if e.cfg.ServerTimingEnabled {
		timing, mark = &serverTiming{jwt: authDuration(r)}, time.Now()
	}
	if aerr := e.refuseAuthenticatorRole(id); aerr != nil {
		return refuse(w, r, aerr)
	}
	if aerr := limitBody(w, r, e.cfg.MaxBodySize); aerr != nil {
		return refuse(w, r, aerr)
	}
	req, aerr := apirequest.Parse(r, e.cfg.Schemas, e.cfg.MaxBodySize)
	if aerr != nil {
		return refuse(w, r, aerr)
	}
	outcome := Outcome{Action: actionName(req.Action), Schema: req.Schema}
	cache, aerr := e.schemaCache(r.Context())
	if aerr != nil {
		return outcome.failed(w, r, aerr, false)
	}
	if timing != nil {
		now := time.Now()
		timing.parse, mark = now.Sub(mark), now
	}
	out, err := e.handleOrExplain(r, req, cache, id)
	if err != nil {
		var pgErr *pgconn.PgError
		return outcome.failed(w, r, e.asAPIError(err, id), errors.As(err, &pgErr))
	}
	if req.Action != apirequest.ActionInfo {
		out.preferenceApplied = timezoneApplied(out.preferenceApplied, req.Preferences.Timezone)
	}
	e.logLegacyNames(r, out.legacyNames())
	if timing != nil {
		now := time.Now()
		if t := out.timing(); t != nil {
			timing.transaction = t.transaction
		}
		timing.plan = now.Sub(mark) - timing.transaction
		// The response phase is what remains: header writing and copying
		// the body, measured up to the moment the header must be sent.
		timing.responseFrom = now
		out.setTiming(timing)
	}
	status, err := out.write(w, r, e.profileHeader(req))
	outcome.Status = status
	if err != nil {
		outcome.Aborted = true
		e.logAborted(r, err)
	}
	return outcome
}

// handle routes the parsed request to its action, which runs its main
// statement as run says.
func (e *Executor) handle(r *http.Request, req *apirequest.Request, cache *schemacache.Cache, id jwtauth.Identity,
	run mainRun) (*output, error) {
	switch req.Action {
	case apirequest.ActionInfo:
		return e.options(req, cache)
	case apirequest.ActionInspect:
		if e.cfg.RootSpec != "" {
			return e.rootSpec(r, req, cache, id)
		}
		if e.cfg.OpenAPIMode == OpenAPIDisabled {
			return nil, apierr.OpenAPIDisabled()
		}
		return e.inspect(r, req, cache, id)
	case apirequest.ActionRead:
		return e.read(r, req, cache, id, run)
	case apirequest.ActionInvoke:
		return e.invoke(r, req, cache, id, run)
	default:
		return e.write(r, req, cache, id, run)
	}
}

// profileHeader is the Content-Profile response header: PostgREST names
// the schema whenever more than one is exposed.
func (e *Executor) profileHeader(req *apirequest.Request) string {
	if len(e.cfg.Schemas) > 1 {
		return req.Schema
	}
	return ""
}

// asAPIError turns any failure into the client's error.
func (e *Executor) asAPIError(err error, id jwtauth.Identity) *apierr.Error {
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return ae
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return e.connectionFailure(err)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return apierr.FromDatabase(pgErr, id.Authenticated)
	}
	if errors.Is(err, context.Canceled) {
		// The client went away; nobody reads this answer.
		return apierr.ClientError("request canceled")
	}
	return e.clientFailure(err)
}

// acquire takes a pool connection within db_pool_acquisition_timeout.
func (e *Executor) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	conn, err := e.acquireWithin(ctx, e.pool, true)
	if err == nil {
		return conn, nil
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return nil, e.connectionFailure(err)
	}
	if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil, apierr.AcquisitionTimeout()
	}
	return nil, err
}
