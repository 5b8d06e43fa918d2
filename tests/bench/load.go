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
	// keepLatency keeps every request's latency (for the p50/p99 table).
	keepLatency bool
	// pace, when above 0, paces the variant's requests at that multiple
	// of the throughput pgrest just reached in the cell (pace.go).
	pace float64
	// remote, when set, sends the variant's load from the load
	// generator's process (client.go).
	remote *clientProcess
	// target is the site the load generator sends to, by name (default:
	// the variant's name).
	target string
	// gcPercent, when not 0, is this process's GOGC during the variant's
	// windows (diag.go).
	gcPercent int
}

// sample is what one or more windows of load measured.
type sample struct {
	done int64 // requests that succeeded within the windows
	// served counts every request that succeeded, those that ended after
	// their window closed too: the work the CPU times paid for.
	served    int64
	errs      int64 // requests that failed, whenever they ended
	firstErr  error
	window    time.Duration
	latencies []time.Duration
	// cpu is this process's CPU time over the windows, their tails and a
	// garbage collection after each; clientCPU the load generator's, when
	// it runs in a process of its own; dbCPU the database server's, when
	// measured.
	cpu, clientCPU, dbCPU time.Duration
	// gc is the garbage collection in this process during the windows.
	gc gcStats
	// busy is the CPU time the whole machine used, every process's, over
	// the wall-clock time wall that cpu, clientCPU and dbCPU were
	// measured in (otherLoad).
	busy, wall time.Duration
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
	s.served += o.served
	s.errs += o.errs
	if s.firstErr == nil {
		s.firstErr = o.firstErr
	}
	s.window += o.window
	s.latencies = append(s.latencies, o.latencies...)
	s.cpu += o.cpu
	s.clientCPU += o.clientCPU
	s.dbCPU += o.dbCPU
	s.gc.add(o.gc)
	s.busy += o.busy
	s.wall += o.wall
}

// cpuPerRequest is the CPU time per request served of this process, of
// the load generator's process and of the database server.
func (s *sample) cpuPerRequest() (self, client, db time.Duration) {
	if s.served == 0 {
		return 0, 0, 0
	}
	n := time.Duration(s.served)
	return s.cpu / n, s.clientCPU / n, s.dbCPU / n
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
	return measurePaced(ctx, dur, ops, keepLatency, 0)
}

// measurePaced is measure with the requests paced at rate per second
// (pace.go): a worker takes the next slot of a shared schedule and waits
// for its time before sending. A rate of 0 is measure's closed loop. The
// latencies are timed from the send.
func measurePaced(ctx context.Context, dur time.Duration, ops []op, keepLatency bool, rate float64) *sample {
	type worker struct {
		done      int64
		served    int64
		errs      int64
		firstErr  error
		latencies []time.Duration
	}
	workers := make([]worker, len(ops))
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(dur)
	pace := newPacer(start, rate)
	for i := range workers {
		w, run := &workers[i], ops[i]
		wg.Go(func() {
			for {
				if pace != nil && !pace.wait(ctx, deadline) {
					return
				}
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
				w.served++
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
	s := &sample{window: dur}
	for i := range workers {
		w := &workers[i]
		s.done += w.done
		s.served += w.served
		s.errs += w.errs
		if s.firstErr == nil {
			s.firstErr = w.firstErr
		}
		s.latencies = append(s.latencies, w.latencies...)
	}
	return s
}
