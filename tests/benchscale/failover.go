package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// readRecord is one read of the failover load.
type readRecord struct {
	start, end time.Time
	answer     answer
}

// failoverResult is what a stop and restart of the replica cost the
// reads.
type failoverResult struct {
	// stopCommand is how long the stop took to return.
	stopCommand            time.Duration
	toPrimary, lastReplica time.Duration
	slowest, median        time.Duration
	back                   time.Duration
	failed                 int
}

// failover stops the replica in mode under a read load through the
// routing pgrest, keeps the load on until reads run on the primary and a
// second more, starts the replica again and waits until reads run on it.
func failover(ctx context.Context, e *env, opt options, mode string) (failoverResult, error) {
	if err := e.waitOnReplica(ctx); err != nil {
		return failoverResult{}, err
	}
	stop := make(chan struct{})
	records := make([][]readRecord, opt.conc)
	var wg sync.WaitGroup
	limit := time.Now().Add(2 * time.Minute)
	for w := range opt.conc {
		wg.Go(func() {
			for time.Now().Before(limit) && ctx.Err() == nil {
				select {
				case <-stop:
					return
				default:
				}
				start := time.Now()
				a := e.where(e.routed)
				records[w] = append(records[w], readRecord{start: start, end: time.Now(), answer: a})
			}
		})
	}
	finish := func() []readRecord {
		close(stop)
		wg.Wait()
		var all []readRecord
		for _, r := range records {
			all = append(all, r...)
		}
		slices.SortFunc(all, func(a, b readRecord) int { return a.end.Compare(b.end) })
		return all
	}

	time.Sleep(500 * time.Millisecond)
	stopAt := time.Now()
	var err error
	if mode == "crash" {
		err = e.replica.Kill()
	} else {
		err = e.replica.Stop(mode)
	}
	if err != nil {
		finish()
		return failoverResult{}, err
	}
	stopped := time.Since(stopAt)
	time.Sleep(time.Second)
	if err := e.replica.Start(); err != nil {
		finish()
		return failoverResult{}, err
	}
	startedAt := time.Now()
	err = waitUntil(ctx, 30*time.Second, func() bool { return e.where(e.routed) == answerReplica })
	all := finish()
	if err != nil {
		return failoverResult{}, fmt.Errorf("reads did not return to the restarted replica: %w", err)
	}

	f := failoverResult{stopCommand: stopped}
	var during []time.Duration
	primarySeen, backSeen := false, false
	for _, r := range all {
		if r.answer == answerFailed && !r.start.Before(stopAt) {
			f.failed++
		}
		if !r.start.Before(stopAt) && r.start.Before(startedAt) {
			during = append(during, r.end.Sub(r.start))
		}
		switch {
		case r.answer == answerPrimary && !primarySeen && r.end.After(stopAt):
			f.toPrimary, primarySeen = r.end.Sub(stopAt), true
		case r.answer == answerReplica && r.end.After(stopAt) && r.end.Before(startedAt):
			f.lastReplica = r.end.Sub(stopAt)
		case r.answer == answerReplica && !backSeen && r.start.After(startedAt):
			f.back, backSeen = r.end.Sub(startedAt), true
		}
	}
	if !primarySeen {
		return f, fmt.Errorf("no read ran on the primary after the replica stopped")
	}
	if !backSeen {
		// The load's readers had ended when the probe saw the replica:
		// it was back by then.
		f.back = time.Since(startedAt)
	}
	if len(during) > 0 {
		slices.Sort(during)
		f.slowest, f.median = during[len(during)-1], during[len(during)/2]
	}
	return f, nil
}
