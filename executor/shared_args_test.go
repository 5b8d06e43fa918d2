package executor

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// The settings arguments requests share (the method, no cookies) have no
// room past their end, so an append to one copies it and cannot write
// where another request reads.
func TestSharedSettingsArgumentsAreSealed(t *testing.T) {
	shared := map[string][]byte{"no cookies": cookiesJSON(httptest.NewRequest(http.MethodGet, "/items", nil))}
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete} {
		shared[m] = methodBytes(m)
	}
	for name, b := range shared {
		if cap(b) != len(b) {
			t.Errorf("%s: capacity %d past a length of %d", name, cap(b), len(b))
		}
	}
	if &methodBytes(http.MethodGet)[0] != &methodBytes(http.MethodGet)[0] {
		t.Error("GET is not shared: this test checks nothing")
	}
}
