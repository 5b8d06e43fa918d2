package caddymodule

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

func init() {
	caddy.RegisterModule(Health{})
	httpcaddyfile.RegisterHandlerDirective("pgrest_health", parseHealthCaddyfile)
	// With the responding handlers, ahead of respond and so of pgrest:
	// in the API's own site it answers /live and /ready and passes every
	// other path on.
	httpcaddyfile.RegisterDirectiveOrder("pgrest_health", httpcaddyfile.Before, "respond")
}

// Health answers liveness and readiness probes for the pgrest handlers of
// the running config, with the meaning of PostgREST's admin server:
//
//   - GET /live is 200 while the process serves HTTP.
//   - GET /ready is 200 when every pgrest handler has its schema cache
//     loaded and its database answers, else 503.
//
// Other paths are passed to the next handler. It exposes nothing but the
// status (no body), so it can sit on a public port; a load balancer or a
// Kubernetes probe needs no access to Caddy's admin API:
//
//	:3001 {
//	    pgrest_health
//	}
type Health struct {
	logger *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (Health) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.pgrest_health",
		New: func() caddy.Module { return new(Health) },
	}
}

// Provision sets up the logger.
func (hh *Health) Provision(ctx caddy.Context) error {
	hh.logger = ctx.Logger()
	return nil
}

// ServeHTTP answers /live and /ready, and passes anything else on.
func (hh *Health) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	var probe func(*http.Request) int
	switch r.URL.Path {
	case "/live":
		probe = func(*http.Request) int { return http.StatusOK }
	case "/ready":
		probe = hh.ready
	default:
		return next.ServeHTTP(w, r)
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return nil
	}
	// Probes must see the state now, never a cached answer.
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(probe(r))
	return nil
}

// ready is 200 when every pgrest handler is ready, else 503; why not is
// logged at debug level (the admin API's /pgrest/ready tells it too).
func (hh *Health) ready(r *http.Request) int {
	handlers := liveHandlers()
	if len(handlers) == 0 {
		hh.logger.Debug("not ready: no pgrest handler is configured")
		return http.StatusServiceUnavailable
	}
	for _, h := range handlers {
		exec := h.executor()
		if exec == nil {
			continue // cleaned up since the list was taken
		}
		if err := exec.Ready(r.Context()); err != nil {
			hh.logger.Debug("not ready", zap.Strings("db_schemas", h.schemas), zap.Error(err))
			return http.StatusServiceUnavailable
		}
	}
	return http.StatusOK
}

// UnmarshalCaddyfile takes the directive with no arguments: `pgrest_health`.
func (hh *Health) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive's name
	if d.NextArg() {
		return d.ArgErr()
	}
	if d.NextBlock(0) {
		return d.Errf("pgrest_health takes no options")
	}
	return nil
}

func parseHealthCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	hh := new(Health)
	if err := hh.UnmarshalCaddyfile(h.Dispenser); err != nil {
		return nil, err
	}
	return hh, nil
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Health)(nil)
	_ caddyhttp.MiddlewareHandler = (*Health)(nil)
	_ caddyfile.Unmarshaler       = (*Health)(nil)
)
