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
	// down is set while the replica is stopped (from the return of the
	// stop to the call of the start), and onStopped counts the reads sent
	// and answered by the replica within that time: none may be.
	down      atomic.Bool
	onStopped atomic.Int64
}

func (l *loadTally) fail(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failures) < 20 {
		l.failures = append(l.failures, fmt.Sprintf(format, args...))
	}
}

// readLoad runs workers reading /rpc/in_recovery in closed loops until
// stop is closed, bounded by five minutes.
func readLoad(s *pgresttest.Server, workers int, stop <-chan struct{}, tally *loadTally) *sync.WaitGroup {
	client := &http.Client{Timeout: waitLimit}
	deadline := time.Now().Add(5 * time.Minute)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				select {
				case <-stop:
					return
				default:
				}
				sentWhileDown := tally.down.Load()
				res, err := s.Try(client, "GET", "/rpc/in_recovery", "")
				switch {
				case err != nil:
					tally.fail("%v", err)
				case res.Status != http.StatusOK:
					tally.fail("%d %s", res.Status, res.Body)
				case string(res.Body) == "true":
					tally.onReplica.Add(1)
					if sentWhileDown && tally.down.Load() {
						tally.onStopped.Add(1)
					}
				case string(res.Body) == "false":
					tally.onPrimary.Add(1)
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
	waitUntil(t, "the replica taken into use", func() bool { return onReplica(t, s) })

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
	waitUntil(t, "the load's reads on the replica before it stops", func() bool {
		r, _ := tally.counts()
		return r > 0
	})

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
	tally.down.Store(true)
	// The load goes on on the primary: at least primaryReads more reads,
	// none of them on the stopped replica.
	const primaryReads = 10
	_, p0 := tally.counts()
	waitUntil(t, fmt.Sprintf("%d reads on the primary after the replica stopped", primaryReads), func() bool {
		_, p := tally.counts()
		return p-p0 >= primaryReads
	})
	tally.down.Store(false)
	if n := tally.onStopped.Load(); n > 0 {
		t.Errorf("%d reads ran on the stopped replica", n)
	}

	r1, _ := tally.counts()
	if err := replica.Start(); err != nil {
		t.Fatal(err)
	}
	stopped = false
	waitUntil(t, "reads back on the restarted replica", func() bool {
		r, _ := tally.counts()
		return r > r1
	})

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
	waitUntil(t, "the started replica taken into use", func() bool { return onReplica(t, s) })
}
