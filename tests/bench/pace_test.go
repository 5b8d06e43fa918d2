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

func TestPaceDebtCarriesAShortfallIntoTheNextWindows(t *testing.T) {
	var d paceDebt
	w := 250 * time.Millisecond
	if got := d.rate(1000, w); got != 1000 {
		t.Errorf("rate with nothing owed %v, want the pace", got)
	}
	// Each window is paced at 1000/s for 250 ms: 250 requests.
	for _, step := range []struct {
		why  string
		done int64
		want float64
	}{
		{"50 short, owed over the next window", 200, 1200},
		{"300 behind, stopped at maxCatchUp above", 0, 1250},
		{"300 over its 250, the debt settled", 550, 1000},
		{"250 ahead, stopped at maxCatchUp below", 500, 750},
	} {
		d.add(1000, &sample{done: step.done, window: w})
		if got := d.rate(1000, w); got != step.want {
			t.Errorf("%s: rate %v, want %v", step.why, got, step.want)
		}
	}
	// An unpaced variant stays unpaced and owes nothing.
	var u paceDebt
	u.add(0, &sample{done: 10, window: w})
	if got := u.rate(0, w); got != 0 || u.owed != 0 {
		t.Errorf("unpaced: rate %v, owed %v", got, u.owed)
	}
}
