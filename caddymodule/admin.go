package caddymodule

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2"

	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

func init() {
	caddy.RegisterModule(adminAPI{})
}

// adminAPI adds pgrest's endpoints to Caddy's admin API, for operators (the
// admin API listens on localhost:2019 unless configured otherwise):
//
//	GET  /pgrest/ready         readiness of each pgrest handler, with why not
//	GET  /pgrest/schema_cache  each handler's schema cache, as JSON
//	GET  /pgrest/config        each handler's configuration, secrets redacted
//	POST /pgrest/reload        reload every handler's schema cache
//
// Each answer is a JSON array with one entry per pgrest handler of the
// running config, in the order they were provisioned.
type adminAPI struct{}

// CaddyModule returns the Caddy module information.
func (adminAPI) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "admin.api.pgrest",
		New: func() caddy.Module { return new(adminAPI) },
	}
}

// Routes returns the admin routes.
func (a adminAPI) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{
		{Pattern: "/pgrest/ready", Handler: caddy.AdminHandlerFunc(a.handleReady)},
		{Pattern: "/pgrest/schema_cache", Handler: caddy.AdminHandlerFunc(a.handleSchemaCache)},
		{Pattern: "/pgrest/config", Handler: caddy.AdminHandlerFunc(a.handleConfig)},
		{Pattern: "/pgrest/reload", Handler: caddy.AdminHandlerFunc(a.handleReload)},
	}
}

type readiness struct {
	Schemas []string `json:"db_schemas"`
	Ready   bool     `json:"ready"`
	Error   string   `json:"error,omitempty"`
}

// handleReady is 200 when every handler is ready, else 503; the body says
// which is not, and why.
func (adminAPI) handleReady(w http.ResponseWriter, r *http.Request) error {
	if err := allowMethod(r, http.MethodGet); err != nil {
		return err
	}
	handlers := liveHandlers()
	out := make([]readiness, 0, len(handlers))
	status := http.StatusOK
	if len(handlers) == 0 {
		status = http.StatusServiceUnavailable
	}
	for _, h := range handlers {
		exec := h.executor()
		if exec == nil {
			continue
		}
		rd := readiness{Schemas: h.schemas, Ready: true}
		if err := exec.Ready(r.Context()); err != nil {
			rd.Ready, rd.Error = false, err.Error()
			status = http.StatusServiceUnavailable
		}
		out = append(out, rd)
	}
	return writeAdminJSON(w, status, out)
}

type schemaCacheEntry struct {
	Schemas []string           `json:"db_schemas"`
	Cache   *schemacache.Cache `json:"schema_cache"`
}

// handleSchemaCache writes each handler's current schema cache (null
// before its first load).
func (adminAPI) handleSchemaCache(w http.ResponseWriter, r *http.Request) error {
	if err := allowMethod(r, http.MethodGet); err != nil {
		return err
	}
	handlers := liveHandlers()
	out := make([]schemaCacheEntry, 0, len(handlers))
	for _, h := range handlers {
		if exec := h.executor(); exec != nil {
			out = append(out, schemaCacheEntry{Schemas: h.schemas, Cache: exec.SchemaCache()})
		}
	}
	return writeAdminJSON(w, http.StatusOK, out)
}

// handleConfig writes each handler's effective configuration (the
// Caddyfile's, defaults applied, with the in-database settings over it)
// as its JSON config would spell it, with secrets redacted.
func (adminAPI) handleConfig(w http.ResponseWriter, r *http.Request) error {
	if err := allowMethod(r, http.MethodGet); err != nil {
		return err
	}
	handlers := liveHandlers()
	out := make([]Handler, 0, len(handlers))
	for _, h := range handlers {
		if rt := h.live.current.Load(); rt != nil {
			out = append(out, h.live.shown(rt.effective))
		}
	}
	return writeAdminJSON(w, http.StatusOK, out)
}

// handleReload asks every handler's schema cache to reload, as NOTIFY
// pgrst, 'reload schema' does; the caches reload in the background.
func (adminAPI) handleReload(w http.ResponseWriter, r *http.Request) error {
	if err := allowMethod(r, http.MethodPost); err != nil {
		return err
	}
	for _, h := range liveHandlers() {
		if exec := h.executor(); exec != nil {
			exec.ReloadSchemaCache()
		}
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func allowMethod(r *http.Request, method string) error {
	if r.Method == method {
		return nil
	}
	return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method not allowed: use %s", method)}
}

func writeAdminJSON(w http.ResponseWriter, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return caddy.APIError{HTTPStatus: http.StatusInternalServerError, Err: err}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, err = w.Write(body)
	return err
}
