package executor

import (
	"net/http"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// DefaultMaxBodySize is max_body_size when the configuration leaves it out.
const DefaultMaxBodySize int64 = 10 << 20

// limitBody bounds r's body to limit bytes before anything reads it. A
// declared Content-Length over the limit is refused at once, so not one
// byte of such a body is read. A body of unknown length (chunked) is cut
// off while it streams: reading past the limit fails with
// *http.MaxBytesError, which apirequest turns into the same 413, and the
// server then closes the connection instead of draining the rest.
func limitBody(w http.ResponseWriter, r *http.Request, limit int64) *apierr.Error {
	if r.ContentLength > limit {
		return apierr.PayloadTooLarge(limit)
	}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = http.MaxBytesReader(w, r.Body, limit)
	}
	return nil
}
