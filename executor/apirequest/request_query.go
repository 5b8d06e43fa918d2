package apirequest

import apierr "github.com/pgrest/caddy-pgrest/errors"

// A request's query string is parsed into room allocated with the Request
// (Request.query): one allocation per request rather than two. The room
// serves the first parse only; a second one gets room of its own, so
// that the first Query is never overwritten.

// ParseQuery is ParseQuery(req.RawQuery), the Query kept with req.
func (req *Request) ParseQuery() (*Query, *apierr.Error) {
	return parseQuery(req.queryRoom(), req.RawQuery, false, true)
}

// ParseRPCQuery is ParseRPCQuery(req.RawQuery), the Query kept with req.
func (req *Request) ParseRPCQuery() (*Query, *apierr.Error) {
	return parseQuery(req.queryRoom(), req.RawQuery, true, true)
}

// queryRoom is new, zero room for a Query.
func (req *Request) queryRoom() *queryAlloc {
	if req.queryTaken {
		return &queryAlloc{}
	}
	req.queryTaken = true
	return &req.query
}
