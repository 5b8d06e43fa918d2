package realtime

import (
	"errors"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/realtime/changes"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// A subscriber that never drains is cut off once its queue is full,
// while the reader goes on and the others receive every change.
func TestSlowConsumerCutOff(t *testing.T) {
	e := newEnv(t, "rt_slow", changes.Config{SubscriberQueue: 100})
	spec := changes.Spec{Event: "INSERT", Schema: "public", Table: "notes"}
	stuck := make(chan struct{})
	defer close(stuck)
	slow, _, err := e.feed.Subscribe(t.Context(), anon, []changes.Spec{spec}, func(changes.Delivery) { <-stuck })
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	_, _, fast := subscribe(t, e, anon, spec)
	// One row per transaction, in steps of 50 that the fast subscriber
	// receives before the next step: its queue never holds more than 50,
	// so it is not cut off however late its goroutine runs on a loaded
	// machine, while the slow one's queue passes 100 in the third step.
	const rows, step = 200, 50
	conn := pgtest.Connect(t, e.dsn)
	for i := 1; i <= rows; i++ {
		if _, err := conn.Exec(t.Context(), "insert into notes (id) values ($1)", i); err != nil {
			t.Fatal(err)
		}
		if i%step == 0 {
			fast.wait(t, i)
		}
	}
	got := fast.wait(t, rows)
	for i, d := range got {
		if d.Data.Record["id"] != float64(i+1) {
			t.Fatalf("delivery %d is %s", i, d.raw)
		}
	}
	select {
	case <-slow.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the subscriber that never drains was not cut off")
	}
	if !errors.Is(slow.Err(), changes.ErrSlowConsumer) {
		t.Errorf("Err() = %v, want ErrSlowConsumer", slow.Err())
	}
}
