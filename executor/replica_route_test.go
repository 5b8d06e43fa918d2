package executor

import (
	"net/http"
	"testing"
)

func TestWantsPrimaryReadsHTTPsFreshnessDirectives(t *testing.T) {
	tests := []struct {
		name    string
		headers map[string][]string
		want    bool
	}{
		{"no header reads from a replica", nil, false},
		{"Cache-Control: no-cache asks for the primary", map[string][]string{"Cache-Control": {"no-cache"}}, true},
		{"max-age=0 among other directives asks for the primary", map[string][]string{"Cache-Control": {"no-transform, Max-Age=0"}}, true},
		{"a later Cache-Control line counts too", map[string][]string{"Cache-Control": {"max-stale=5", "no-cache"}}, true},
		{"Pragma: no-cache asks for the primary", map[string][]string{"Pragma": {"no-cache"}}, true},
		{"max-age=10 does not", map[string][]string{"Cache-Control": {"max-age=10"}}, false},
		{"no-store is about storing, not freshness", map[string][]string{"Cache-Control": {"no-store"}}, false},
		{"a directive name inside another's value does not", map[string][]string{"Cache-Control": {`ext="no-cache-x"`}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := wantsPrimary(http.Header(tt.headers)); got != tt.want {
				t.Errorf("wantsPrimary(%v) = %v, want %v", tt.headers, got, tt.want)
			}
		})
	}
}
