package executor

import (
	"strconv"
	"sync"
	"testing"
)

func TestCachedStatementNameIsStatementName(t *testing.T) {
	for _, c := range []struct{ role, sql string }{
		{"", settingsSQL},
		{"webuser", "select 1"},
		{"web_anon", "select 1"},
		{"webuser", "select 2"},
	} {
		// Twice: computed, then remembered.
		for range 2 {
			if got, want := cachedStatementName(c.role, c.sql), statementName(c.role, c.sql); got != want {
				t.Errorf("cachedStatementName(%q, %q) = %s, want %s", c.role, c.sql, got, want)
			}
		}
	}
	if cachedStatementName("a", "select 1") == cachedStatementName("b", "select 1") {
		t.Error("two roles share a statement name")
	}
}

func TestStatementNamesStayBounded(t *testing.T) {
	for i := range 2*maxStatementNames + 10 {
		sql := "select " + strconv.Itoa(i)
		if got, want := cachedStatementName("r", sql), statementName("r", sql); got != want {
			t.Fatalf("%q: %s, want %s", sql, got, want)
		}
	}
	statementNames.mu.RLock()
	n := len(statementNames.m)
	statementNames.mu.RUnlock()
	if n > maxStatementNames {
		t.Errorf("%d names remembered, more than %d", n, maxStatementNames)
	}
}

// Requests name their statements concurrently; run with -race.
func TestCachedStatementNameConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range maxStatementNames + 100 {
				sql := "select " + strconv.Itoa(i%(50*(g+1)))
				if got, want := cachedStatementName("r", sql), statementName("r", sql); got != want {
					t.Errorf("%q: %s, want %s", sql, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
