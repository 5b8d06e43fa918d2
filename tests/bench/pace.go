package main

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"
)

// PostgreSQL's CPU time per request depends on the pace of the requests,
// not only on what they send: a backend that a tight loop keeps busy
// finds its next request waiting, while one whose requests come further
// apart goes to sleep between them and is woken for each (a scheduler
// wake-up, caches gone cold). The raw loop runs about four times as fast
// as pgrest on this machine, so PostgreSQL CPU pgrest/raw mixes what
// pgrest sends with how fast it comes. The paced variants (-pace) run the
// raw loop, same statements, same workers and pool, at a multiple of the
// throughput pgrest just reached in the cell: at 1, raw@pgrest, the
// same statements at pgrest's pace, which leaves what pgrest's
// transaction itself costs the server; the other multiples show how the
// cost per request moves with the pace.

// pacer hands out the slots of a schedule of one request every interval
// from start, to the workers of a window in turn.
type pacer struct {
	start    time.Time
	interval time.Duration
	next     atomic.Int64
}

// newPacer paces at rate requests per second; nil, no pacing, for 0.
func newPacer(start time.Time, rate float64) *pacer {
	if rate <= 0 {
		return nil
	}
	return &pacer{start: start, interval: time.Duration(float64(time.Second) / rate)}
}

// wait takes the next slot and waits for its time. It returns false,
// without waiting, when the slot falls after deadline or ctx ends first.
// A worker that is late sends at once, so the rate is kept as long as
// the variant can keep up.
func (p *pacer) wait(ctx context.Context, deadline time.Time) bool {
	at := p.start.Add(time.Duration(p.next.Add(1)-1) * p.interval)
	if !at.Before(deadline) {
		return false
	}
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// caddyRawPaced names caddy+raw paced at pgrest's throughput. Pacing moves
// the Go side's cost per request as it does the server's: a process whose
// requests come further apart wakes more often for fewer of them (a
// network poll, a scheduler pass and a wake-up of each goroutine per
// request instead of several requests per pass), so pgrest's extra CPU
// beside caddy+raw, which runs faster, mixes in the pace.
const caddyRawPaced = "caddy+raw@pgrest"

// pacedName names the raw loop paced at factor times pgrest's rate.
func pacedName(factor float64) string {
	if factor == 1 {
		return "raw@pgrest"
	}
	return "raw@" + strconv.FormatFloat(factor, 'g', -1, 64) + "x"
}

// paceTracker follows the throughput pgrest just reached in a cell: over
// its last paceWindows windows, or its warm-up until there is one (a
// warm-up starts on cold connections and runs slower). Recent windows,
// not all so far: on a shared machine pgrest's rate drifts as the load
// around it does, and the paced loop should meet the same conditions.
type paceTracker struct {
	recent     []*sample
	warmDone   int64
	warmWindow time.Duration
}

// paceWindows is how many of pgrest's latest windows set the pace.
const paceWindows = 2

func (t *paceTracker) add(s *sample) {
	t.recent = append(t.recent, s)
	if len(t.recent) > paceWindows {
		t.recent = t.recent[1:]
	}
}

func (t *paceTracker) addWarmUp(s *sample) {
	t.warmDone += s.done
	t.warmWindow += s.window
}

func (t *paceTracker) rate() float64 {
	var done int64
	var window time.Duration
	for _, s := range t.recent {
		done += s.done
		window += s.window
	}
	if window == 0 {
		done, window = t.warmDone, t.warmWindow
	}
	if window <= 0 {
		return 0
	}
	return float64(done) / window.Seconds()
}

// paceDebt is how many requests a paced variant owes its pace over a
// cell's measured windows so far. A paced schedule that falls behind (a
// garbage collection, a process scheduled away) catches up only as fast
// as the variant can go beyond its pace, which for caddy+raw is 1.1 to
// 1.3 times pgrest's throughput on this machine: a window often ended
// before it had, and over a cell caddy+raw@pgrest ran 2-8% short of
// pgrest's pace, at a CPU cost per request that a slower pace raises. So
// what a window owes is carried into the next: each is sent at its pace
// plus the debt spread over the window, within maxCatchUp of the pace, and
// over a cell the variant serves at pgrest's pace as long as it can.
type paceDebt struct{ owed float64 }

// maxCatchUp bounds how far above (or, for a variant that ran ahead,
// below) its pace a window is sent.
const maxCatchUp = 0.25

// rate is the rate of a window of length d whose pace is pace; 0 (no
// pacing) stays 0.
func (p *paceDebt) rate(pace float64, d time.Duration) float64 {
	if pace <= 0 || d <= 0 {
		return pace
	}
	r := pace + p.owed/d.Seconds()
	return min(max(r, pace*(1-maxCatchUp)), pace*(1+maxCatchUp))
}

// add records a measured window whose pace was pace.
func (p *paceDebt) add(pace float64, s *sample) {
	if pace <= 0 {
		return
	}
	p.owed += pace*s.window.Seconds() - float64(s.done)
}
