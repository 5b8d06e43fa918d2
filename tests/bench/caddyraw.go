package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The caddy+raw variant is the ceiling the throughput goal is set
// against: the raw baseline's pipelined transaction with Caddy's bare
// routing cost added, measured directly rather than added up. Its requests
// go from the same HTTP client to a second site of the same Caddy config
// as pgrest's (same shape: one site address, one handler, no matcher),
// whose handler is rawHandler below: it looks the workload up by the
// request target, reads the request body, runs the raw pipeline (rawPipeline) on a
// pool of its own and writes the body pgrest answers with. What pgrest does
// beyond that (the token, parsing, the schema cache, SQL generation, the
// settings JSON, headers) is what pgrest/caddy+raw measures.
//
// caddy+raw reaches 0.8 to 0.9 of the ceiling (ceiling.go) and is not
// the cause: it allocates less per request than Caddy's own respond
// route, and one connection per in-flight request, context.Background
// or a higher GOGC (-diag-caddy-raw, -diag-gogc) gain nothing beyond the
// noise. The ceiling adds the costs of its halves measured each at its
// own, much higher, pace, where every process finds work waiting when it
// wakes; at caddy+raw's pace each is woken per request and costs more
// (-diag-ceiling-pace measures them at pgrest's pace, where together
// they cost more CPU per request than caddy+raw). See the README.

// caddyRawDirective is the handler's Caddyfile directive and module name.
const caddyRawDirective = "pgrest_bench_raw"

func init() {
	caddy.RegisterModule(&rawHandler{})
	httpcaddyfile.RegisterHandlerDirective(caddyRawDirective, parseRawHandler)
	// Where pgrest's directive is ordered, so the two sites are alike.
	httpcaddyfile.RegisterDirectiveOrder(caddyRawDirective, httpcaddyfile.Before, "reverse_proxy")
}

// caddyRawSite is the site block serving the handler on port, appended to
// pgrest's Caddyfile; variant, when set, names one of the diagnostic
// variants (caddyRawDiag), given as the directive's argument.
func caddyRawSite(port int, variant string) string {
	directive := caddyRawDirective
	if variant != "" {
		directive += " " + variant
	}
	return fmt.Sprintf("http://127.0.0.1:%d {\n\t%s\n}\n", port, directive)
}

// rawBackend is what the handler serves with, set once the bench has
// learnt the workloads and opened the pools.
type rawBackend struct {
	// pool is caddy+raw's own, -pool connections; perRequest has one
	// connection per in-flight request (the pipeline variant's).
	pool, perRequest *pgxpool.Pool
	byTarget         map[string]*workload // by method and request target
}

var caddyRawBackend atomic.Pointer[rawBackend]

func serveCaddyRaw(pool, perRequest *pgxpool.Pool, workloads []*workload) {
	b := &rawBackend{pool: pool, perRequest: perRequest, byTarget: map[string]*workload{}}
	for _, wl := range workloads {
		b.byTarget[wl.method+" "+wl.target] = wl
	}
	caddyRawBackend.Store(b)
}

// rawHandler is the http.handlers.pgrest_bench_raw module.
type rawHandler struct {
	// Variant is a diagnostic variant's flags (caddyRawDiag), or empty:
	// caddy+raw itself.
	Variant string `json:"variant,omitempty"`
	diag    caddyRawDiag
}

// Provision parses the variant's flags once.
func (h *rawHandler) Provision(caddy.Context) error {
	var err error
	h.diag, err = parseCaddyRawDiag(h.Variant)
	return err
}

func (*rawHandler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers." + caddyRawDirective,
		New: func() caddy.Module { return new(rawHandler) },
	}
}

func parseRawHandler(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	h.Next()
	var r rawHandler
	if h.NextArg() {
		r.Variant = h.Val()
		if _, err := parseCaddyRawDiag(r.Variant); err != nil {
			return nil, h.Err(err.Error())
		}
	}
	if h.NextArg() || h.NextBlock(0) {
		return nil, h.ArgErr()
	}
	return &r, nil
}

// rawBuffers are the handler's request and response buffers.
var rawBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// ServeHTTP answers a workload's request with the raw baseline's
// transaction. Anything unexpected is an error status, which the client's
// check counts as a failure.
func (h *rawHandler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	b := caddyRawBackend.Load()
	if b == nil {
		return caddyhttp.Error(http.StatusServiceUnavailable, fmt.Errorf("the caddy+raw pool is not open yet"))
	}
	wl := b.byTarget[r.Method+" "+r.RequestURI]
	if wl == nil {
		return caddyhttp.Error(http.StatusNotFound, fmt.Errorf("no workload %s %s", r.Method, r.RequestURI))
	}
	buf := rawBuffers.Get().(*bytes.Buffer)
	defer rawBuffers.Put(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(r.Body); err != nil {
		return caddyhttp.Error(http.StatusBadRequest, err)
	}
	if !bytes.Equal(buf.Bytes(), wl.reqBody) {
		return caddyhttp.Error(http.StatusBadRequest, fmt.Errorf("%s: unexpected request body %.100q", wl.name, buf.Bytes()))
	}
	pool, ctx := b.pool, r.Context()
	if h.diag.perRequest {
		pool = b.perRequest
	}
	if h.diag.background {
		ctx = context.Background()
	}
	body, err := runRaw(ctx, pool, wl, buf.Bytes()[:0], withReset)
	if err != nil {
		return caddyhttp.Error(http.StatusInternalServerError, err)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(wl.status)
	_, err = w.Write(body)
	return err
}

// caddyRawOp is the caddy+raw variant's op: pgrest's op, sent to the
// handler's site.
func (e *env) caddyRawOp(wl *workload) op {
	to := *e
	to.baseURL = e.caddyRawURL
	return to.httpOp(wl)
}
