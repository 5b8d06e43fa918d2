package errors

import (
	"context"
	"encoding/json"
	"net/http"
)

// verbosityKey marks a request whose errors are written minimal.
type verbosityKey struct{}

// WithMinimalErrors returns r with client_error_verbosity minimal: Write
// then sends only code and message, as PostgREST does, so details and
// hints (which may name tables, columns or values) stay in the log.
func WithMinimalErrors(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), verbosityKey{}, true))
}

// minimal says whether r asked for minimal error bodies.
func minimal(r *http.Request) bool {
	if r == nil {
		return false
	}
	v, _ := r.Context().Value(verbosityKey{}).(bool)
	return v
}

// minimalBody is the error object under client_error_verbosity minimal.
type minimalBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// MinimalJSON returns the error object with code and message only.
func (e *Error) MinimalJSON() []byte {
	b, _ := json.Marshal(minimalBody{Code: e.Code, Message: e.Message})
	return b
}
