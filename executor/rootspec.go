package executor

import (
	"net/http"
	"strings"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// rootSpec answers GET and HEAD on the root with db_root_spec: the
// function of that name in the request's schema, called as GET
// /rpc/<name> would call it, as PostgREST does. Its result is served as
// the OpenAPI document when the client asks for one, else as JSON.
func (e *Executor) rootSpec(r *http.Request, req *apirequest.Request, cache *schemacache.Cache, id jwtauth.Identity) (*output, error) {
	rep, aerr := apirequest.Negotiate(r.Header.Get("Accept"), inspectMedia)
	if aerr != nil {
		return nil, aerr
	}
	call := *req
	call.Target, call.Action = apirequest.TargetFunction, apirequest.ActionInvoke
	call.Name = rootSpecName(e.cfg.RootSpec)
	// The function's JSON answers both: it is called as for JSON, while
	// its SQL sees the Accept header the client sent.
	asJSON := r.Clone(r.Context())
	asJSON.Header.Set("Accept", "application/json")
	out, err := e.invoke(asJSON, &call, cache, id, mainRun{sentAccept: r.Header.Get("Accept"), acceptReplaced: true})
	if err != nil {
		return nil, err
	}
	if rep.Media == apirequest.MediaOpenAPI {
		out.contentType = rep.ContentType()
	}
	return out, nil
}

// rootSpecName is the function's name: PostgREST looks it up in the
// request's schema, whatever schema db_root_spec names.
func rootSpecName(spec string) string {
	if i := strings.LastIndexByte(spec, '.'); i >= 0 {
		return spec[i+1:]
	}
	return spec
}
