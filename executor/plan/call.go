package plan

import (
	"encoding/hex"
	"net/http"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// Call is a planned function call.
type Call struct {
	Function *schemacache.Function
	// Given are the parameters the request supplies, in declaration order;
	// the others take their defaults.
	Given []schemacache.Param
	// WholeBody passes the request body as the function's single
	// parameter (an unnamed json/jsonb one;
	// an unnamed text, xml or bytea one takes a raw text/plain, text/xml or
	// application/octet-stream body).
	WholeBody bool
	// Args is the JSON object holding the arguments (or, with WholeBody,
	// the body itself).
	Args []byte
	// Range pages a set of scalars; Count adds its exact total.
	Range apirequest.Range
	Count bool
	// Handler, when set, renders a scalar result: the function returns
	// its media type domain, and the value is the body as it is.
	Handler *schemacache.MediaHandler
	// RecordPageTotal is ReadOptions.RecordPageTotal for CallFunction.
	RecordPageTotal bool
}

// BuildCall plans the call req makes of /rpc/<function>: its arguments
// read (the body of a POST by its media type, the query string of a GET
// or HEAD), the overload they choose, and the arguments passed to it.
// The range, count and media handler of the response are the caller's.
func BuildCall(cache *schemacache.Cache, req *apirequest.Request, q *apirequest.Query) (*Call, *apierr.Error) {
	isPost := req.Method == http.MethodPost
	in, aerr := apirequest.ReadCallInput(req, q, isPost)
	if aerr != nil {
		return nil, aerr
	}
	fn, wholeBody, aerr := resolveFunction(cache, req, in, isPost)
	if aerr != nil {
		return nil, aerr
	}
	call := &Call{Function: fn, WholeBody: wholeBody}
	switch {
	case wholeBody:
		call.Args = wholeBodyArgument(fn, in.Body)
	default:
		call.Args = in.ArgumentsFor(fn)
		for _, p := range fn.Params {
			if contains(in.Keys, p.Name) {
				call.Given = append(call.Given, p)
			}
		}
	}
	return call, nil
}

// wholeBodyArgument is the body as the bound value of fn's one parameter.
// Values travel in text format, so a bytea parameter takes the body in
// bytea's hex input form, every byte intact.
func wholeBodyArgument(fn *schemacache.Function, body []byte) []byte {
	if fn.Params[0].Type != "bytea" {
		return body
	}
	out := make([]byte, 2+hex.EncodedLen(len(body)))
	copy(out, `\x`)
	hex.Encode(out[2:], body)
	return out
}
