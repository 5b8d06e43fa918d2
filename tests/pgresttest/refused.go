package pgresttest

import (
	"strings"
	"testing"
)

// ExpectRefusedStart serves dirs and fails t unless the start is refused
// (a provisioning error) with an error naming every one of words: a
// misconfiguration must stop pgrest and say what is wrong. what names the
// case in the failure.
func ExpectRefusedStart(t testing.TB, dirs map[string]string, what string, words ...string) {
	t.Helper()
	_, _, err := Serve(dirs, Options{})
	if err == nil {
		_ = Stop()
		t.Errorf("%s: started", what)
		return
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %v does not name %s", what, err, w)
		}
	}
}
