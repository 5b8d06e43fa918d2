package executor

import (
	"net/http"
	"testing"
	"time"
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

func TestLagIsTheAgeOfTheOldestPositionNotReplayed(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 10, 0, time.UTC)
	samples := []walSample{
		{at: now.Add(-8 * time.Second), lsn: 100},
		{at: now.Add(-5 * time.Second), lsn: 200},
		{at: now.Add(-1 * time.Second), lsn: 300},
	}
	tests := []struct {
		name     string
		replayed int64
		want     time.Duration
	}{
		{"a replica that replayed everything has no lag", 300, 0},
		{"one past the last position has none either", 301, 0},
		{"one behind the last position lags since it was read", 299, time.Second},
		{"one that has not reached the middle lags since then", 150, 5 * time.Second},
		{"one behind everything lags since the oldest", 50, 8 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lagBehind(samples, tt.replayed, now); got != tt.want {
				t.Errorf("lagBehind(%d) = %s, want %s", tt.replayed, got, tt.want)
			}
		})
	}
	t.Run("an idle primary gives a caught-up replica no lag, however old its position", func(t *testing.T) {
		old := []walSample{{at: now.Add(-time.Hour), lsn: 300}}
		if got := lagBehind(old, 300, now); got != 0 {
			t.Errorf("lag = %s", got)
		}
		if got := lagBehind(old, 299, now); got != time.Hour {
			t.Errorf("a stuck replica: lag = %s, want an hour", got)
		}
	})
}
