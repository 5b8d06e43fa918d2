package executor

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

type authDurationKey struct{}

// WithAuthDuration records how long authentication took, for the
// Server-Timing header's jwt entry. Handlers call it only when server
// timing is enabled, so the hot path pays nothing otherwise.
func WithAuthDuration(r *http.Request, d time.Duration) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), authDurationKey{}, d))
}

// serverTiming collects the phases PostgREST reports in Server-Timing.
type serverTiming struct {
	jwt, parse, plan, transaction, response time.Duration
	// responseFrom is when the response phase began; header ends it.
	responseFrom time.Time
}

// header ends the response phase and renders the durations in
// milliseconds, as PostgREST does.
func (t *serverTiming) header() string {
	t.response = time.Since(t.responseFrom)
	var b strings.Builder
	for i, p := range []struct {
		name string
		d    time.Duration
	}{{"jwt", t.jwt}, {"parse", t.parse}, {"plan", t.plan}, {"transaction", t.transaction}, {"response", t.response}} {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s;dur=%.1f", p.name, float64(p.d.Microseconds())/1000)
	}
	return b.String()
}

func authDuration(r *http.Request) time.Duration {
	d, _ := r.Context().Value(authDurationKey{}).(time.Duration)
	return d
}
