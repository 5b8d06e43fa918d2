package executor

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestLimitBody(t *testing.T) {
	t.Run("a declared length over the limit is refused", func(t *testing.T) {
		r := httptest.NewRequest("POST", "/items", strings.NewReader("0123456789"))
		err := limitBody(httptest.NewRecorder(), r, 9)
		if err == nil || err.Code != "PGRST190" || err.Status != http.StatusRequestEntityTooLarge {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a body within the limit is wrapped, so reading past it fails", func(t *testing.T) {
		r := httptest.NewRequest("POST", "/items", strings.NewReader("0123456789"))
		r.ContentLength = -1
		if err := limitBody(httptest.NewRecorder(), r, 4); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 16)
		n, _ := r.Body.Read(buf)
		if _, err := r.Body.Read(buf[n:]); n > 4 || err == nil {
			t.Fatalf("read %d bytes then %v", n, err)
		}
	})
}
