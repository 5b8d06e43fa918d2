package caddymodule

import (
	"slices"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgrest/caddy-pgrest/executor"
)

// liveHandler is what readiness probes, the admin API and the pool metrics
// see of a provisioned handler, fixed at provisioning: they run beside
// requests and reloads and must not read fields Cleanup clears.
type liveHandler struct {
	handler *Handler
	schemas []string
	pool    *pgxpool.Pool
	live    *liveConfig
}

// executor is the executor serving now: an in-database configuration
// reload may have replaced the one provisioned.
func (lh *liveHandler) executor() *executor.Executor {
	if rt := lh.live.current.Load(); rt != nil {
		return rt.executor
	}
	return nil
}

// live is every provisioned pgrest handler not yet cleaned up: those of
// the running config, and for a moment during a reload those of the next
// one too. The health handler and the admin API are other modules, to
// which Caddy gives no reference to a handler.
var live = struct {
	sync.Mutex
	handlers []*liveHandler
}{}

func register(h *Handler) {
	live.Lock()
	defer live.Unlock()
	live.handlers = append(live.handlers, &liveHandler{
		handler: h,
		schemas: slices.Clone(h.DBSchemas),
		pool:    h.pool.Pool,
		live:    h.live,
	})
}

func unregister(h *Handler) {
	live.Lock()
	defer live.Unlock()
	live.handlers = slices.DeleteFunc(live.handlers, func(x *liveHandler) bool { return x.handler == h })
}

// liveHandlers returns the handlers in provisioning order.
func liveHandlers() []*liveHandler {
	live.Lock()
	defer live.Unlock()
	return slices.Clone(live.handlers)
}
