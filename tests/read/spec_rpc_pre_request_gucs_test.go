package read

import (
	"net/http"
	"testing"
)

// TestRpcPreRequestGucsSpec mirrors PostgREST v16.2's
// test/spec/Feature/RpcPreRequestGucsSpec.hs: a pre-request function
// (custom_headers, named unqualified as the spec's config does) sets
// response headers on every method, and may replace the Content-Type.
// Its writes roll back, as under the spec's baseCfg. A comment gives each
// case's line.
func TestRpcPreRequestGucsSpec(t *testing.T) {
	s := startSpecServer(t, "db_tx_end rollback-allow-override", "db_pre_request custom_headers")
	custom := map[string]string{"Content-Type": "", "X-Custom-Header": "mykey=myval"}
	customNoLength := map[string]string{"Content-Type": "", "Content-Length": "", "X-Custom-Header": "mykey=myval"}
	runSpecRequests(t, s, []specRequest{
		// L18
		{name: `succeeds setting the headers on POST`, method: http.MethodPost, path: `/items`, reqBody: `[{"id": 11111}]`,
			status: http.StatusCreated, raw: true, match: custom},
		// L28
		{name: `succeeds setting the headers on GET and HEAD`, path: `/items?id=eq.1`, header: []string{"User-Agent", "MSIE 6.0"},
			body: `[{"id": 1}]`, match: map[string]string{"Cache-Control": "no-cache, no-store, must-revalidate"}},
		// L35
		{name: `succeeds setting the headers on GET and HEAD (2)`, method: http.MethodHead, path: `/items?id=eq.1`, header: []string{"User-Agent", "MSIE 7.0"},
			raw: true, match: map[string]string{"Content-Type": specJSONType, "Cache-Control": "no-cache, no-store, must-revalidate"}},
		// L44
		{name: `succeeds setting the headers on GET and HEAD (3)`, method: http.MethodHead, path: `/projects`, header: []string{"Accept", "text/csv"},
			raw: true, match: map[string]string{"Content-Type": "text/csv; charset=utf-8", "Content-Disposition": "attachment; filename=projects.csv"}},
		// L54
		{name: `succeeds setting the headers on PATCH`, method: http.MethodPatch, path: `/items?id=eq.1`, reqBody: `[{"id": 11111}]`,
			status: http.StatusNoContent, raw: true, match: customNoLength},
		// L65
		{name: `succeeds setting the headers on PUT`, method: http.MethodPut, path: `/items?id=eq.1`, reqBody: `[{"id": 1}]`,
			status: http.StatusNoContent, raw: true, match: customNoLength},
		// L76
		{name: `succeeds setting the headers on DELETE`, method: http.MethodDelete, path: `/items?id=eq.1`,
			status: http.StatusNoContent, raw: true, match: customNoLength},
		// L85
		{name: `can override the Content-Type header`, method: http.MethodHead, path: `/clients?id=eq.1`,
			raw: true, match: map[string]string{"Content-Type": "application/custom+json"}},
		// L93
		{name: `can override the Content-Type header (2)`, method: http.MethodHead, path: `/rpc/getallprojects`,
			raw: true, match: map[string]string{"Content-Type": "application/custom+json"}},
	})
}
