package ops

import (
	"testing"
	"time"
)

// A start loads the schema cache once, and a config reload once more.
// Before, a start asked for a second load while the first was pending;
// whether it ran depended on the loader goroutine's timing (on a busy
// machine it often did, and retired the statements the first requests
// had prepared). Now no second load is asked for.
func TestStartLoadsTheSchemaCacheOnce(t *testing.T) {
	s := startReadySite(t)
	loads := func() int { return len(logLines(t, s.Log, "schema cache loaded")) }
	// Long enough for a second load, had one been asked for, to end.
	time.Sleep(time.Second)
	if n := loads(); n != 1 {
		t.Fatalf("after a start: %d schema cache loads, want 1", n)
	}

	// The same config again is a config reload: the source is kept and
	// reads the schema again, as PostgREST does on a config reload.
	s.load(t)
	eventually(t, 10*time.Second, "no schema cache load after a config reload", func() bool { return loads() >= 2 })
	time.Sleep(time.Second)
	if n := loads(); n != 2 {
		t.Fatalf("after a config reload: %d schema cache loads, want 2", n)
	}
}
