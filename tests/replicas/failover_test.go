package replicas

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// loadTally is what a read load got back: where each read ran, and every
// failure.
type loadTally struct {
	onReplica, onPrimary atomic.Int64
	mu                   sync.Mutex
	failures             []string
	// lastPrimary and lastReplica are when a read last ran on each.
	lastPrimary, lastReplica atomic.Int64
}

func (l *loadTally) fail(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failures) < 20 {
		l.failures = append(l.failures, fmt.Sprintf(format, args...))
	}
}

// readLoad runs workers reading /rpc/in_recovery in closed loops until
// stop is closed, bounded by a minute.
func readLoad(s *pgresttest.Server, workers int, stop <-chan struct{}, tally *loadTally) *sync.WaitGroup {
	client := &http.Client{Timeout: 30 * time.Second}
	deadline := time.Now().Add(time.Minute)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				select {
				case <-stop:
					return
				default:
				}
				res, err := s.Try(client, "GET", "/rpc/in_recovery", "")
				switch {
				case err != nil:
					tally.fail("%v", err)
				case res.Status != http.StatusOK:
					tally.fail("%d %s", res.Status, res.Body)
				case string(res.Body) == "true":
					tally.onReplica.Add(1)
					tally.lastReplica.Store(time.Now().UnixNano())
				case string(res.Body) == "false":
					tally.onPrimary.Add(1)
					tally.lastPrimary.Store(time.Now().UnixNano())
				default:
					tally.fail("200 %s", res.Body)
				}
			}
		})
	}
	return &wg
}

// countsAt reads the tally's counts.
func (l *loadTally) counts() (replica, primary int64) { return l.onReplica.Load(), l.onPrimary.Load() }

func TestAStoppedReplicaUnderLoadFailsNoRead(t *testing.T) {
	for _, mode := range []string{"fast", "crash"} {
		t.Run("stopped "+mode, func(t *testing.T) { stopUnderLoad(t, mode) })
	}
}

func stopUnderLoad(t *testing.T, mode string) {
	s := pgresttest.Start(t, base())
	waitUntil(t, 10*time.Second, "the replica taken into use", func() bool { return onReplica(t, s) })

	var tally loadTally
	stop := make(chan struct{})
	wg := readLoad(s, 4, stop, &tally)
	stopped := false
	defer func() {
		close(stop)
		wg.Wait()
		if stopped {
			if err := replica.Start(); err != nil {
				t.Error(err)
			}
		}
	}()
	time.Sleep(500 * time.Millisecond)
	if r, _ := tally.counts(); r == 0 {
		t.Fatal("no read ran on the replica before it was stopped")
	}

	stopAt := time.Now()
	stopReplica := replica.Stop
	if mode == "crash" {
		// What pg_ctl stop -m immediate sends, without the script around
		// it: the replica's backends quit without a word to their clients.
		stopReplica = func(string) error { return replica.Kill() }
	}
	if err := stopReplica(mode); err != nil {
		t.Fatal(err)
	}
	stopped = true
	t.Logf("stopping the replica (%s) took %s", mode, time.Since(stopAt).Round(time.Millisecond))
	r0, p0 := tally.counts()
	time.Sleep(time.Second)
	r1, p1 := tally.counts()
	if r1 != r0 {
		t.Errorf("%d reads ran on the stopped replica", r1-r0)
	}
	if p1-p0 < 10 {
		t.Errorf("only %d reads ran on the primary in the second after the replica stopped", p1-p0)
	}

	startAt := time.Now()
	if err := replica.Start(); err != nil {
		t.Fatal(err)
	}
	stopped = false
	back := waitUntil(t, 10*time.Second, "reads back on the restarted replica", func() bool {
		return tally.lastReplica.Load() > startAt.UnixNano()
	})
	t.Logf("reads ran on the restarted replica %s after pg_ctl start returned", back.Round(time.Millisecond))
	time.Sleep(300 * time.Millisecond)

	tally.mu.Lock()
	failures := tally.failures
	tally.mu.Unlock()
	r, p := tally.counts()
	t.Logf("%d reads on the replica, %d on the primary, %d failed", r, p, len(failures))
	if len(failures) > 0 {
		t.Errorf("failed reads (first %d): %q", len(failures), failures)
	}
	if r <= r1 {
		t.Error("no read ran on the replica after it restarted")
	}
}

func TestTheSchemaCacheLoadsFromThePrimary(t *testing.T) {
	// With the replica down from the start, the server loads its schema
	// cache, is ready and serves every read from the primary.
	if err := replica.Stop("fast"); err != nil {
		t.Fatal(err)
	}
	started := false
	t.Cleanup(func() {
		if !started {
			if err := replica.Start(); err != nil {
				t.Error(err)
			}
		}
	})
	s := pgresttest.Start(t, base())
	res := s.Get(t, "/where_am_i")
	if inRecovery(t, res) {
		t.Fatal("a read ran on the stopped replica")
	}
	s.Get(t, "/tasks?id=eq.1").ExpectStatus(t, http.StatusOK)
	if err := replica.Start(); err != nil {
		t.Fatal(err)
	}
	started = true
	took := waitUntil(t, 10*time.Second, "the started replica taken into use", func() bool { return onReplica(t, s) })
	t.Logf("the replica started after the server was in use %s later", took.Round(time.Millisecond))
}
