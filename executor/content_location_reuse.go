package executor

import (
	"net/http"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
)

// contentLocationOf is contentLocation(req) without a string of its own
// when the request's target already is that address (/items?id=eq.1, or
// /items without a query): the target is returned instead, which saves a
// read an allocation. A target that differs in any byte (a path under a
// prefix, parameters out of order) gets contentLocation's.
func contentLocationOf(r *http.Request, req *apirequest.Request) string {
	if req.RawQuery == "" {
		if isAddress(r.URL.Path, req.Name, "") {
			return r.URL.Path
		}
	} else if isAddress(r.RequestURI, req.Name, req.RawQuery) && querySorted(req.RawQuery) {
		return r.RequestURI
	}
	return contentLocation(req)
}

// isAddress says whether s is "/" + name, followed by "?" + query when
// query is not empty.
func isAddress(s, name, query string) bool {
	n := 1 + len(name)
	if query != "" {
		n += 1 + len(query)
	}
	if len(s) != n || s[0] != '/' || s[1:1+len(name)] != name {
		return false
	}
	return query == "" || (s[1+len(name)] == '?' && s[2+len(name):] == query)
}
