// Package errors holds pgrest's one error type, a constructor for every
// PGRST code, the mapping from PostgreSQL SQLSTATEs to HTTP statuses and the
// one function that writes an error to the client.
//
// Every failure on the way from request to response becomes an *Error and
// leaves through Write, so the body shape, Content-Type and Proxy-Status
// header are the same on every path.
package errors

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// Error is an API error as the client sees it: an HTTP status plus the
// PostgREST error object {code, message, details, hint}.
type Error struct {
	// Status is the HTTP status code of the response.
	Status int
	// Code is a SQLSTATE, a PGRSTgxx code or a custom code.
	Code string
	// Message is always present.
	Message string
	// Details and Hint are usually strings; some PGRST errors carry JSON
	// values (PGRST201 lists the candidate relationships). Nil is written
	// as JSON null.
	Details any
	Hint    any
	// Headers are added to the response (WWW-Authenticate, or the headers
	// of a custom error).
	Headers http.Header
}

// Error makes *Error usable as a Go error.
func (e *Error) Error() string {
	return e.Code + ": " + e.Message
}

// body is the wire shape. Field order follows PostgREST's output.
type body struct {
	Code    string `json:"code"`
	Details any    `json:"details"`
	Hint    any    `json:"hint"`
	Message string `json:"message"`
}

// JSON returns the error object as the client receives it.
func (e *Error) JSON() []byte {
	b, err := json.Marshal(body{Code: e.Code, Details: e.Details, Hint: e.Hint, Message: e.Message})
	if err != nil {
		// Details or Hint held something unencodable; keep the contract
		// shape and drop them rather than send a broken body.
		b, _ = json.Marshal(body{Code: e.Code, Message: e.Message})
	}
	return b
}

// ProxyStatusName is the proxy name in the Proxy-Status header (RFC 9209).
const ProxyStatusName = "pgrest"

// RetryAfterSeconds is the Retry-After of every 503 and 504 that does not
// bring its own. PostgREST answers its 503s with Retry-After set to the
// seconds until its next connection attempt. pgrest tries again at most
// a second after a failed attempt, and sooner when a request comes in, so
// the next attempt is never more than a second away; a busy pool (504)
// frees up on the same scale. A custom error raised with its own
// Retry-After keeps it.
const RetryAfterSeconds = "1"

// Write sends e as the complete response: its headers, the JSON content
// type, Proxy-Status, Retry-After on 503 and 504, the status line and,
// except for HEAD, the body.
// It is the only place pgrest writes an error.
func Write(w http.ResponseWriter, r *http.Request, e *Error) {
	h := w.Header()
	// A Content-Range set for a page that then failed is stale; one the
	// error brings (a 416's */total) is not, so clear before copying.
	h.Del("Content-Range")
	for k, vs := range e.Headers {
		h.Del(k)
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	if (e.Status == http.StatusServiceUnavailable || e.Status == http.StatusGatewayTimeout) && h.Get("Retry-After") == "" {
		h.Set("Retry-After", RetryAfterSeconds)
	}
	payload := e.JSON()
	if minimal(r) {
		payload = e.MinimalJSON()
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Proxy-Status", ProxyStatusName+"; error="+e.Code)
	h.Set("Content-Length", strconv.Itoa(len(payload)))
	status := e.Status
	if status < 100 || status > 999 {
		status = http.StatusInternalServerError
	}
	w.WriteHeader(status)
	if r == nil || r.Method != http.MethodHead {
		_, _ = w.Write(payload)
	}
}

// str returns a JSON string value for optional fields, nil for "".
func str(s string) any {
	if s == "" {
		return nil
	}
	return s
}
