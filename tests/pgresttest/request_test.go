package pgresttest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestDoSendsARepeatedHeaderTwice: a header named twice in Do's headers
// arrives twice (PostgREST's specs send two Prefer headers), while the
// first one named still replaces the Content-Type Request sets.
func TestDoSendsARepeatedHeaderTwice(t *testing.T) {
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Prefer", strings.Join(r.Header.Values("Prefer"), "|"))
		w.Header().Set("X-Content-Type", strings.Join(r.Header.Values("Content-Type"), "|"))
	}))
	defer echo.Close()
	s := &Server{URL: echo.URL}
	res := s.Do(t, http.MethodPost, "/", "{}",
		"Prefer", "return=representation", "Content-Type", "text/csv", "Prefer", "count=exact")
	if got := res.Header.Get("X-Prefer"); got != "return=representation|count=exact" {
		t.Errorf("Prefer headers received: %q, want both", got)
	}
	if got := res.Header.Get("X-Content-Type"); got != "text/csv" {
		t.Errorf("Content-Type received: %q, want text/csv alone", got)
	}
}
