package main

import (
	"context"
	"testing"
	"time"
)

// A paced window sends the schedule's requests, not as many as the
// workers could: an op that costs nothing, 8 workers, 2,000 a second for
// 300 ms is 600 requests, give or take the timer's slack at the edges.
func TestPacedWindowKeepsTheRate(t *testing.T) {
	ops := make([]op, 8)
	for i := range ops {
		ops[i] = func(context.Context) error { return nil }
	}
	s := measurePaced(context.Background(), 300*time.Millisecond, ops, true, 2000)
	if s.errs > 0 {
		t.Fatal(s.firstErr)
	}
	if s.served < 540 || s.served > 600 {
		t.Errorf("paced at 2000/s for 300ms: %d requests served, want 540 to 600", s.served)
	}
	if got := len(s.latencies); int64(got) != s.done {
		t.Errorf("%d latencies kept for %d requests", got, s.done)
	}
	// Unpaced, the same workers send far more.
	if u := measure(context.Background(), 100*time.Millisecond, ops, false); u.served < 10*s.served/3 {
		t.Errorf("unpaced: %d requests in 100ms, paced %d in 300ms", u.served, s.served)
	}
}

func TestPaceTrackerFollowsTheMeasuredRate(t *testing.T) {
	var tr paceTracker
	if tr.rate() != 0 {
		t.Fatalf("rate before any window: %v", tr.rate())
	}
	tr.addWarmUp(&sample{done: 50, window: 100 * time.Millisecond})
	if got := tr.rate(); got != 500 {
		t.Errorf("rate after the warm-up %v, want 500", got)
	}
	tr.add(&sample{done: 900, window: 100 * time.Millisecond})
	tr.add(&sample{done: 300, window: 100 * time.Millisecond})
	tr.add(&sample{done: 100, window: 100 * time.Millisecond})
	if got := tr.rate(); got != 2000 {
		t.Errorf("rate %v, want 2000, over the last two windows", got)
	}
	if pacedName(1) != "raw@pgrest" || pacedName(0.5) != "raw@0.5x" {
		t.Errorf("names %q, %q", pacedName(1), pacedName(0.5))
	}
}
