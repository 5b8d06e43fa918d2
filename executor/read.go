package executor

import (
	"net/http"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schema"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// read answers GET and HEAD on a table or view, in a read-only transaction.
func (e *Executor) read(r *http.Request, req *apirequest.Request, cache *schema.Cache, id jwtauth.Identity) (*output, error) {
	if _, ok := cache.Relation(req.Schema, req.Name); !ok {
		return nil, apierr.TableNotFound(req.Schema, req.Name, closestRelation(cache, req.Schema, req.Name))
	}
	main := sqlgen.ReadAll(req.Schema, req.Name, e.cfg.MaxRows)
	out, err := e.transact(r, req, cache, id, main, true)
	if err != nil {
		return nil, err
	}
	out.contentRange = contentRange(0, out.pageTotal, out.total)
	return out, nil
}

// closestRelation suggests a relation of schema for a misspelt name.
func closestRelation(cache *schema.Cache, schemaName, name string) string {
	names := make([]string, 0, len(cache.Relations[schemaName]))
	for n := range cache.Relations[schemaName] {
		names = append(names, n)
	}
	return closest(name, names)
}
