// Package apirequest reads an HTTP request into an ApiRequest: what is
// targeted (the API root, a relation or a function), which action, which
// schema, the preferences and the body. It is pure: it looks at the
// request only, never at the database or the schema cache.
package apirequest

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// Target is what the path names.
type Target int

// Path targets.
const (
	TargetRoot     Target = iota // "/"
	TargetRelation               // "/<table or view>"
	TargetFunction               // "/rpc/<function>"
)

// Action is what the request asks of its target.
type Action int

// Actions, after PostgREST's ApiRequest.
const (
	ActionRead    Action = iota // GET or HEAD on a relation
	ActionCreate                // POST on a relation
	ActionUpdate                // PATCH
	ActionUpsert                // PUT
	ActionDelete                // DELETE
	ActionInvoke                // GET, HEAD or POST on a function
	ActionInspect               // GET or HEAD on the root
	ActionInfo                  // OPTIONS
)

// Request is the parsed request.
type Request struct {
	Method string
	Target Target
	Action Action
	// Name is the relation or function name (empty for the root).
	Name string
	// Path is the request path as PostgREST sets request.path.
	Path string
	// Schema is the schema the request runs in; ProfileGiven says whether
	// an Accept-Profile/Content-Profile header chose it.
	Schema       string
	ProfileGiven bool
	Preferences  Preferences
	// RawQuery is the undecoded query string; ParseQuery reads it once the
	// target is known (reads and calls parse it differently).
	RawQuery string
	// ContentType is the body's media type, lower case, without parameters.
	ContentType string
	Body        []byte
	// query is room for the parsed query string (see ParseQuery);
	// queryTaken says a parse has used it.
	query      queryAlloc
	queryTaken bool
}

// Parse reads r. schemas are db_schemas, the first being the default.
// maxBody bounds the body in bytes: a larger one is 413 PGRST190.
func Parse(r *http.Request, schemas []string, maxBody int64) (*Request, *apierr.Error) {
	req := &Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery}
	if err := req.route(r.URL.Path, r.Method); err != nil {
		return nil, err
	}
	if err := req.chooseSchema(r, schemas); err != nil {
		return nil, err
	}
	prefs, err := ParsePreferences(r.Header.Values("Prefer"))
	if err != nil {
		return nil, err
	}
	req.Preferences = prefs
	if hasBody(req.Action, r.Method) {
		if err := req.readBody(r, maxBody); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// route reads the path and method into Target, Name and Action.
func (req *Request) route(path, method string) *apierr.Error {
	first, second, nested := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	switch {
	case path == "/" || path == "":
		req.Target = TargetRoot
	case !nested && first != "":
		req.Target, req.Name = TargetRelation, first
	case nested && first == "rpc" && second != "" && !strings.Contains(second, "/"):
		req.Target, req.Name = TargetFunction, second
	default:
		return apierr.InvalidResourcePath()
	}
	if method == http.MethodOptions {
		req.Action = ActionInfo
		return nil
	}
	switch req.Target {
	case TargetRoot:
		if method != http.MethodGet && method != http.MethodHead {
			return apierr.UnsupportedMethod(method)
		}
		req.Action = ActionInspect
	case TargetFunction:
		switch method {
		case http.MethodGet, http.MethodHead, http.MethodPost:
			req.Action = ActionInvoke
		default:
			// Every other verb, known or not, is PGRST101 on a function,
			// as the contract and PostgREST have it.
			return apierr.InvalidRPCMethod(method)
		}
	case TargetRelation:
		switch method {
		case http.MethodGet, http.MethodHead:
			req.Action = ActionRead
		case http.MethodPost:
			req.Action = ActionCreate
		case http.MethodPatch:
			req.Action = ActionUpdate
		case http.MethodPut:
			req.Action = ActionUpsert
		case http.MethodDelete:
			req.Action = ActionDelete
		default:
			return apierr.UnsupportedMethod(method)
		}
	}
	return nil
}

// chooseSchema applies Accept-Profile (reads) or Content-Profile (writes).
func (req *Request) chooseSchema(r *http.Request, schemas []string) *apierr.Error {
	header := "Content-Profile"
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		header = "Accept-Profile"
	}
	req.Schema = schemas[0]
	profile := r.Header.Get(header)
	if profile == "" {
		return nil
	}
	for _, s := range schemas {
		if s == profile {
			req.Schema, req.ProfileGiven = s, true
			return nil
		}
	}
	return apierr.UnacceptableSchema(profile, schemas)
}

// hasBody says whether the action reads a request body.
func hasBody(a Action, method string) bool {
	switch a {
	case ActionCreate, ActionUpdate, ActionUpsert:
		return true
	case ActionInvoke:
		return method == http.MethodPost
	}
	return false
}

func (req *Request) readBody(r *http.Request, maxBody int64) *apierr.Error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		ct = "application/json"
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		// PostgREST ignores parameters it cannot read.
		var ok bool
		if mt, _, ok = tokenizeMediaType(ct); !ok {
			return apierr.UnsupportedContentType(ct)
		}
	}
	req.ContentType = mt // both lower-case it
	if r.Body == nil {
		return nil
	}
	if r.ContentLength > maxBody {
		return apierr.PayloadTooLarge(maxBody)
	}
	body, rerr := readAll(io.LimitReader(r.Body, maxBody+1), r.ContentLength)
	if rerr != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(rerr, &tooLarge) {
			return apierr.PayloadTooLarge(tooLarge.Limit)
		}
		return apierr.InvalidBody("Error reading the request body: " + rerr.Error())
	}
	if int64(len(body)) > maxBody {
		return apierr.PayloadTooLarge(maxBody)
	}
	req.Body = body
	return nil
}

// readAll reads a body once into one buffer. With a declared length (the
// caller has refused one over the limit) the buffer has that size, plus a
// byte to see the end, so it is never copied to grow. Without one it grows
// as io.ReadAll does, bounded by the limited reader it is given.
func readAll(body io.Reader, contentLength int64) ([]byte, error) {
	if contentLength < 0 {
		return io.ReadAll(body)
	}
	buf := make([]byte, 0, contentLength+1)
	for {
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) {
			// More than declared: only a reader that is not an HTTP
			// server's gives that; read the rest the ordinary way.
			rest, err := io.ReadAll(body)
			return append(buf, rest...), err
		}
	}
}
