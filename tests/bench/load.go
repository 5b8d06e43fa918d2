package main

import (
	"context"
	"sync"
	"time"
)

// op runs one request and checks its answer. Each worker has its own op,
// so an op may keep buffers between calls.
type op func(ctx context.Context) error

// variant is one way of serving a workload.
type variant struct {
	name string
	// newOp makes a worker's op for wl.
	newOp func(wl *workload) op
	// keepLatency keeps every request's latency (for pgrest's p50/p99).
	keepLatency bool
}

// sample is what one or more windows of load measured.
type sample struct {
	done      int64 // requests that succeeded within the windows
	errs      int64 // requests that failed, whenever they ended
	firstErr  error
	window    time.Duration
	latencies []time.Duration
	// finished counts every request that succeeded, the window's tail
	// included, and cpu is the process's CPU time over the same span:
	// cpu/finished is the CPU a request costs this process.
	finished int64
	cpu      time.Duration
}

func (s *sample) rate() float64 {
	if s.window <= 0 {
		return 0
	}
	return float64(s.done) / s.window.Seconds()
}

// add accumulates another window.
func (s *sample) add(o *sample) {
	s.done += o.done
	s.errs += o.errs
	if s.firstErr == nil {
		s.firstErr = o.firstErr
	}
	s.window += o.window
	s.finished += o.finished
	s.cpu += o.cpu
	s.latencies = append(s.latencies, o.latencies...)
}

// maxErrsPerWorker stops a worker that only fails, so a broken run ends
// quickly instead of spinning through errors for the whole window.
const maxErrsPerWorker = 100

// measure runs one worker per op in a closed loop for one window of dur:
// each sends its next request when the last one is answered. A request
// counts when it succeeded before the window closed; the ones still in
// flight then are finished (and checked) but not counted, so short
// windows carry no bias from their tail.
func measure(ctx context.Context, dur time.Duration, ops []op, keepLatency bool) *sample {
	type worker struct {
		done      int64
		errs      int64
		firstErr  error
		latencies []time.Duration
		finished  int64
	}
	workers := make([]worker, len(ops))
	var wg sync.WaitGroup
	cpu0 := processCPU()
	start := time.Now()
	deadline := start.Add(dur)
	for i := range workers {
		w, run := &workers[i], ops[i]
		wg.Go(func() {
			for {
				t0 := time.Now()
				if !t0.Before(deadline) || ctx.Err() != nil {
					return
				}
				err := run(ctx)
				t1 := time.Now()
				if err != nil {
					if ctx.Err() != nil {
						return // interrupted, not failed
					}
					w.errs++
					if w.firstErr == nil {
						w.firstErr = err
					}
					if w.errs >= maxErrsPerWorker {
						return
					}
					continue
				}
				w.finished++
				if t1.After(deadline) {
					return
				}
				w.done++
				if keepLatency {
					w.latencies = append(w.latencies, t1.Sub(t0))
				}
			}
		})
	}
	wg.Wait()
	s := &sample{window: dur, cpu: processCPU() - cpu0}
	for i := range workers {
		w := &workers[i]
		s.done += w.done
		s.errs += w.errs
		s.finished += w.finished
		if s.firstErr == nil {
			s.firstErr = w.firstErr
		}
		s.latencies = append(s.latencies, w.latencies...)
	}
	return s
}
