package executor

import (
	"context"
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
	asJSON := r.Clone(context.WithValue(r.Context(), sentAcceptKey{}, r.Header.Get("Accept")))
	asJSON.Header.Set("Accept", "application/json")
	out, err := e.invoke(asJSON, &call, cache, id)
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

// sentAcceptKey holds, in a request's context, the Accept header the client
// sent when pgrest calls something for another media type than the one
// asked for (db_root_spec's function, for the OpenAPI document).
type sentAcceptKey struct{}

// asSent is r as the client sent it, for the headers SQL sees
// (request.headers).
func asSent(r *http.Request) *http.Request {
	accept, ok := r.Context().Value(sentAcceptKey{}).(string)
	if !ok {
		return r
	}
	sent := r.Clone(r.Context())
	sent.Header.Set("Accept", accept)
	return sent
}
