package faults

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// A database restart under write load loses no acknowledged write and
// applies none twice: every 201 is a row of the table, exactly once.
// Requests caught by the restart get an answer (an error), none hangs, and
// writes succeed again once the database is back.
func TestDatabaseRestartUnderWriteLoad(t *testing.T) {
	for _, mode := range []string{"fast", "immediate"} {
		t.Run(mode, func(t *testing.T) { restartUnderWriteLoad(t, mode) })
	}
}

// writeLog is what the writers of a load test got back.
type writeLog struct {
	mu        sync.Mutex
	acked     []string       // keys answered 201
	answers   map[string]int // other answers: "503 PGRST001", ...
	failures  map[string]int // requests without an answer, by error
	last201   time.Time
	requests  int
	hungCount int
}

func (l *writeLog) record(key string, res *pgresttest.Response, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.requests++
	switch {
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		l.hungCount++
	case err != nil:
		l.failures[err.Error()]++
	case res.Status == http.StatusCreated:
		l.acked = append(l.acked, key)
		l.last201 = time.Now()
	default:
		var e struct{ Code string }
		_ = json.Unmarshal(res.Body, &e)
		code := e.Code
		l.answers[fmt.Sprintf("%d %s", res.Status, code)]++
	}
}

func restartUnderWriteLoad(t *testing.T, mode string) {
	const writers = 4
	s := startServer(t, "db_pool 4")
	ready(t, s)
	wl := &writeLog{answers: map[string]int{}, failures: map[string]int{}}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: writers}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("%s-%d-%d", mode, w, i)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				req, err := s.Request(http.MethodPost, "/writes", `{"key": "`+key+`"}`)
				if err != nil {
					t.Error(err)
					cancel()
					return
				}
				res, err := pgresttest.Send(client, req.WithContext(ctx))
				cancel()
				wl.record(key, res, err)
				if err != nil || res.Status != http.StatusCreated {
					time.Sleep(20 * time.Millisecond) // no busy loop while the database is down
				}
			}
		}()
	}

	time.Sleep(time.Second)
	restartStart := time.Now()
	if err := db.Cluster.Restart(mode); err != nil {
		close(stop)
		wg.Wait()
		if errors.Is(err, pgtest.ErrNotOurs) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	restarted := time.Now()
	recovered := waitFor(time.Minute, func() bool {
		wl.mu.Lock()
		defer wl.mu.Unlock()
		return wl.last201.After(restarted)
	})
	recovery := time.Since(restarted)
	time.Sleep(time.Second) // a second of writes on the recovered database
	close(stop)
	wg.Wait()

	rows := map[string]int64{}
	var got []struct {
		Key string `json:"key"`
		N   int64  `json:"n"`
	}
	if err := json.Unmarshal(pgresttest.SQLJSON(t, db.SuperDSN,
		"select key, count(*) as n from api.writes where key like $1 group by key", mode+"-%"), &got); err != nil {
		t.Fatal(err)
	}
	for _, r := range got {
		rows[r.Key] = r.N
	}
	lost, duplicated := 0, 0
	ackedSet := make(map[string]bool, len(wl.acked))
	for _, k := range wl.acked {
		ackedSet[k] = true
		if rows[k] == 0 {
			lost++
			t.Errorf("the write %s was answered 201 but is not in the table", k)
		}
	}
	unacknowledged := 0
	for k, n := range rows {
		if n > 1 {
			duplicated++
			t.Errorf("the write %s is in the table %d times", k, n)
		}
		if !ackedSet[k] {
			unacknowledged++
		}
	}
	t.Logf("restart (%s) took %v; %d requests: %d answered 201, other answers %s, no answer %v, hung %d; "+
		"rows %d: lost %d, duplicated %d, written without a 201 %d; first 201 %v after the database was back",
		mode, restarted.Sub(restartStart).Round(time.Millisecond), wl.requests, len(wl.acked), summary(wl.answers),
		wl.failures, wl.hungCount, len(rows), lost, duplicated, unacknowledged, recovery.Round(time.Millisecond))

	if !recovered {
		t.Fatal("no write succeeded within a minute of the database being back")
	}
	if wl.hungCount > 0 {
		t.Errorf("%d requests got no answer within a minute", wl.hungCount)
	}
	if len(wl.failures) > 0 {
		t.Errorf("requests without an HTTP answer: %v", wl.failures)
	}
	for answer := range wl.answers {
		if !strings.HasPrefix(answer, "5") {
			t.Errorf("a write got %s: a restart is no fault of the client's", answer)
		}
	}
}

// summary renders counts in key order.
func summary(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
