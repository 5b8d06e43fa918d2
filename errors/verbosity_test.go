package errors

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestMinimalErrors(t *testing.T) {
	e := &Error{Status: 404, Code: "PGRST205", Message: "m", Details: "d", Hint: "h"}
	t.Run("minimal writes code and message only", func(t *testing.T) {
		w := httptest.NewRecorder()
		Write(w, WithMinimalErrors(httptest.NewRequest(http.MethodGet, "/", nil)), e)
		if got, want := w.Body.String(), `{"code":"PGRST205","message":"m"}`; got != want {
			t.Errorf("body %s, want %s", got, want)
		}
		if w.Code != 404 || w.Header().Get("Proxy-Status") != "pgrest; error=PGRST205" {
			t.Errorf("status %d, Proxy-Status %q", w.Code, w.Header().Get("Proxy-Status"))
		}
	})
	t.Run("verbose, the default, writes all four", func(t *testing.T) {
		w := httptest.NewRecorder()
		Write(w, httptest.NewRequest(http.MethodGet, "/", nil), e)
		if got, want := w.Body.String(), `{"code":"PGRST205","details":"d","hint":"h","message":"m"}`; got != want {
			t.Errorf("body %s, want %s", got, want)
		}
	})
}
