package faults

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// Clients that hang up mid-request cancel their statement and give their
// connection back: no backend is left running the statement or idle in a
// transaction, the pool is never reset for them (so it opens no more
// connections than it holds), and the log says the client went away
// rather than blaming the server.
func TestClientDisconnectStorm(t *testing.T) {
	const (
		pool        = 10
		disconnects = 1000
		clients     = 20
		hangUpAfter = 50 * time.Millisecond
		// callSeconds is what each call sleeps unless cancelled: more
		// than settleTimeout.
		callSeconds   = `{"seconds": 60}`
		settleTimeout = 30 * time.Second
	)
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	s, _, err := pgresttest.Serve(pgresttest.Directives(defaults, "db_pool 10"),
		pgresttest.Options{LogFile: logFile, LogLevel: "DEBUG"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pgresttest.Stop(); err != nil {
			t.Errorf("stopping Caddy: %v", err)
		}
	})
	ready(t, s)
	sessions := countSessions(t)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	var hungUp, answered atomic.Int64
	var wg sync.WaitGroup
	work := make(chan struct{})
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				ctx, cancel := context.WithTimeout(context.Background(), hangUpAfter)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/rpc/sleep", strings.NewReader(callSeconds))
				req.Header.Set("Content-Type", "application/json")
				res, err := client.Do(req)
				switch {
				case err == nil:
					body, _ := io.ReadAll(res.Body)
					res.Body.Close()
					answered.Add(1)
					// A call of a minute cannot succeed in 50 ms: this
					// is an error, such as another request's late cancel.
					t.Errorf("answered before the hang-up: %d %s", res.StatusCode, body)
				case errors.Is(err, context.DeadlineExceeded):
					hungUp.Add(1)
				default:
					t.Errorf("request failed otherwise than by hanging up: %v", err)
				}
				cancel()
			}
		}()
	}
	// Bystanders call on the same pool meanwhile: a cancel request that
	// arrived late would cancel their statement instead (57014).
	stop := make(chan struct{})
	var bystanderOK, bystanderFailed atomic.Int64
	var bystanders sync.WaitGroup
	for range 2 {
		bystanders.Add(1)
		go func() {
			defer bystanders.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := s.Try(client, http.MethodPost, "/rpc/sleep", `{"seconds": 0.01}`)
				if err != nil || res.Status != http.StatusOK {
					bystanderFailed.Add(1)
					if err == nil {
						t.Errorf("a bystander's call got %d %s", res.Status, res.Body)
					} else {
						t.Errorf("a bystander's call failed: %v", err)
					}
					continue
				}
				bystanderOK.Add(1)
			}
		}()
	}
	for range disconnects {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	took := time.Since(start)
	close(stop)
	bystanders.Wait()

	// Cancelled statements end. The calls sleep a minute, longer than the
	// wait allowed here, so one that was not cancelled still runs when
	// the wait gives up: the wait tells a cancelled call from one that
	// finished.
	var running, idleInTx int64
	settled := waitFor(settleTimeout, func() bool {
		running = authenticatorBackends(t, "active", sleepCall)
		idleInTx = authenticatorBackends(t, "idle in transaction", "")
		return running == 0 && idleInTx == 0
	})
	opened := sessions.Opened(t)
	log, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	wentAway := strings.Count(string(log), "client went away")
	blamed := strings.Count(string(log), "connection closed by the server")
	t.Logf("%d requests in %v: %d hung up after %v, %d answered first; new database connections: %d (db_pool %d); "+
		"bystanders: %d calls answered 200, %d not; afterwards %d backends running api.sleep, %d idle in transaction; log: %d \"client went away\", %d \"connection closed by the server\"",
		disconnects, took.Round(time.Millisecond), hungUp.Load(), hangUpAfter, answered.Load(), opened, pool,
		bystanderOK.Load(), bystanderFailed.Load(), running, idleInTx, wentAway, blamed)

	if bystanderOK.Load() == 0 {
		t.Error("no bystander call succeeded during the storm")
	}
	if hungUp.Load() < disconnects*9/10 {
		t.Errorf("only %d of %d requests were cut by the client; the test did not test disconnects", hungUp.Load(), disconnects)
	}
	if !settled {
		t.Errorf("%s after the storm, %d backends still run api.sleep and %d are idle in transaction", settleTimeout, running, idleInTx)
	}
	if opened > pool {
		t.Errorf("the storm opened %d database connections, more than the pool's %d: the pool was reset", opened, pool)
	}
	if blamed > 0 {
		t.Errorf("the log blamed the server %d times for clients hanging up", blamed)
	}
	if wentAway == 0 {
		t.Error(`the log never says "client went away"`)
	}
	res, err := s.Try(nil, http.MethodPost, "/rpc/sleep", `{"seconds": 0}`)
	if err != nil || res.Status != http.StatusOK {
		t.Fatalf("after the storm a call got %v %v", res, err)
	}
}
