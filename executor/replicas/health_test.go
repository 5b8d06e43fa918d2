package replicas

import (
	"testing"
	"time"
)

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
