package executor

import (
	"net/http"
	"strings"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// options answers OPTIONS with the methods the target takes in Allow,
// as PostgREST computes them: PUT needs an insertable and updatable
// relation with a primary key (a view's inferred one counts); a volatile
// function is POST only. Without a CORS allow-list it also carries
// Access-Control-Allow-Origin: *, as PostgREST's does.
func (e *Executor) options(req *apirequest.Request, cache *schemacache.Cache) (*output, error) {
	var methods []string
	switch req.Target {
	case apirequest.TargetFunction:
		fns := cache.FunctionsNamed(req.Schema, req.Name)
		if len(fns) == 0 {
			return nil, apierr.NoFunction(req.Schema, req.Name, nil, " without parameters", "")
		}
		methods = []string{"OPTIONS", "POST"}
		if fns[0].Volatility != 'v' {
			methods = []string{"OPTIONS", "GET", "HEAD", "POST"}
		}
	case apirequest.TargetRelation:
		rel, ok := cache.Relation(req.Schema, req.Name)
		if !ok {
			return nil, apierr.TableNotFound(req.Schema, req.Name, closestRelation(cache, req.Schema, req.Name))
		}
		methods = []string{"OPTIONS", "GET", "HEAD"}
		if rel.Insertable {
			methods = append(methods, "POST")
		}
		if rel.Insertable && rel.Updatable && len(plan.KeyColumns(rel)) > 0 {
			methods = append(methods, "PUT")
		}
		if rel.Updatable {
			methods = append(methods, "PATCH")
		}
		if rel.Deletable {
			methods = append(methods, "DELETE")
		}
	default:
		methods = []string{"OPTIONS", "GET", "HEAD"}
	}
	headers := http.Header{"Allow": {strings.Join(methods, ",")}}
	if !e.cfg.CORSAllowList {
		// PostgREST's OPTIONS answer opens itself to every origin, which
		// is what a site without an allow-list does anyway.
		headers.Set("Access-Control-Allow-Origin", "*")
	}
	return &output{status: http.StatusOK, noBody: true, headers: headers}, nil
}
