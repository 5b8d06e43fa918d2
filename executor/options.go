package executor

import (
	"net/http"
	"strings"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schema"
)

// options answers OPTIONS with the methods the target takes in Allow.
func (e *Executor) options(req *apirequest.Request, cache *schema.Cache) (*output, error) {
	methods := []string{"OPTIONS", "GET", "HEAD"}
	switch req.Target {
	case apirequest.TargetFunction:
		if len(cache.FunctionsNamed(req.Schema, req.Name)) == 0 {
			return nil, apierr.NoFunction(req.Schema, req.Name, nil, " without parameters", "")
		}
		methods = append(methods, "POST")
	case apirequest.TargetRelation:
		rel, ok := cache.Relation(req.Schema, req.Name)
		if !ok {
			return nil, apierr.TableNotFound(req.Schema, req.Name, closestRelation(cache, req.Schema, req.Name))
		}
		if rel.Insertable {
			methods = append(methods, "POST")
		}
		if rel.Updatable {
			methods = append(methods, "PUT", "PATCH")
		}
		if rel.Deletable {
			methods = append(methods, "DELETE")
		}
	}
	return &output{status: http.StatusOK, noBody: true,
		headers: http.Header{"Allow": {strings.Join(methods, ",")}}}, nil
}
