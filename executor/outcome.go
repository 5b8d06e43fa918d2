package executor

import (
	"net/http"
	"strings"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
)

// Outcome is what Serve did with a request: what metrics count and what
// the access log says of it.
type Outcome struct {
	// Action is read, write, rpc, root or options.
	Action string
	// Schema is the schema the request ran in; empty when it was refused
	// before its schema was known.
	Schema string
	// Status is the response's status code.
	Status int
	// Code is the error's code (a SQLSTATE, PGRSTxxx or a custom code)
	// when the response is an error, else empty.
	Code string
	// FromDatabase says Code is the SQLSTATE of an error PostgreSQL
	// raised while running the request.
	FromDatabase bool
	// Aborted says a streamed body broke off after the header was sent
	// (the database failed, or the client went away): the caller must
	// abort the response, so that the client cannot take what it got
	// for the whole body. In net/http: panic(http.ErrAbortHandler), which
	// closes an HTTP/1.1 connection without the last chunk and resets an
	// HTTP/2 stream.
	Aborted bool
}

// The actions an Outcome names, as PostgREST's metrics and logs group
// requests.
const (
	ActionRead    = "read"
	ActionWrite   = "write"
	ActionRPC     = "rpc"
	ActionRoot    = "root"
	ActionOptions = "options"
)

// actionName groups a parsed request's action.
func actionName(a apirequest.Action) string {
	switch a {
	case apirequest.ActionRead:
		return ActionRead
	case apirequest.ActionInvoke:
		return ActionRPC
	case apirequest.ActionInspect:
		return ActionRoot
	case apirequest.ActionInfo:
		return ActionOptions
	default:
		return ActionWrite
	}
}

// ActionOf groups a request that was refused before it could be parsed
// (its token, its body, its URL) by its method and path alone.
func ActionOf(r *http.Request) string {
	switch {
	case r.Method == http.MethodOptions:
		return ActionOptions
	case r.URL.Path == "/" || r.URL.Path == "":
		return ActionRoot
	case strings.HasPrefix(r.URL.Path, "/rpc/"):
		return ActionRPC
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		return ActionRead
	default:
		return ActionWrite
	}
}

// refuse answers a request refused before it was parsed.
func refuse(w http.ResponseWriter, r *http.Request, aerr *apierr.Error) Outcome {
	o := Outcome{Action: ActionOf(r)}
	return o.failed(w, r, aerr, false)
}

// failed writes aerr as the answer and completes the outcome with it.
func (o Outcome) failed(w http.ResponseWriter, r *http.Request, aerr *apierr.Error, fromDatabase bool) Outcome {
	apierr.Write(w, r, aerr)
	o.Status, o.Code, o.FromDatabase = aerr.Status, aerr.Code, fromDatabase
	return o
}
