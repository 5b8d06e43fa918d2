package errors

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestServiceUnavailableAndTimeoutsSayWhenToRetry(t *testing.T) {
	for _, e := range []*Error{
		ConnectionError("x"), ClientError("x"), NoSchemaCache(), AcquisitionTimeout(),
		{Status: http.StatusServiceUnavailable, Code: "53300", Message: "too many connections"},
	} {
		rec := httptest.NewRecorder()
		Write(rec, httptest.NewRequest("GET", "/", nil), e)
		if got := rec.Header().Get("Retry-After"); got != RetryAfterSeconds {
			t.Errorf("%s (%d): Retry-After %q, want %q", e.Code, e.Status, got, RetryAfterSeconds)
		}
	}
}

func TestOtherStatusesHaveNoRetryAfter(t *testing.T) {
	for _, e := range []*Error{QueryParam("m", "d"), JWTTokenRequired(), Internal("x")} {
		rec := httptest.NewRecorder()
		Write(rec, httptest.NewRequest("GET", "/", nil), e)
		if got := rec.Header().Get("Retry-After"); got != "" {
			t.Errorf("%s (%d): Retry-After %q, want none", e.Code, e.Status, got)
		}
	}
}

func TestARaisedRetryAfterIsKept(t *testing.T) {
	e := &Error{Status: http.StatusServiceUnavailable, Code: "P0001", Message: "maintenance",
		Headers: http.Header{"Retry-After": {"120"}}}
	rec := httptest.NewRecorder()
	Write(rec, httptest.NewRequest("GET", "/", nil), e)
	if got := rec.Header().Values("Retry-After"); len(got) != 1 || got[0] != "120" {
		t.Errorf("Retry-After %q, want the raised 120 only", got)
	}
}

func TestARateLimitRefusalSaysWhenToRetry(t *testing.T) {
	rec := httptest.NewRecorder()
	Write(rec, httptest.NewRequest("GET", "/", nil), RateLimited("per_user", 3))
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "3" ||
		rec.Header().Get("Proxy-Status") != "pgrest; error=PGRST193" {
		t.Errorf("status %d, headers %v", rec.Code, rec.Header())
	}
	want := `{"code":"PGRST193","details":"The rate limit \"per_user\" allows no more requests now.",` +
		`"hint":"Send it again after the seconds Retry-After says.","message":"Too many requests"}`
	if got := rec.Body.String(); got != want {
		t.Errorf("body %s, want %s", got, want)
	}
	rec = httptest.NewRecorder()
	Write(rec, httptest.NewRequest("GET", "/", nil), RateLimitUnavailable())
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != RetryAfterSeconds {
		t.Errorf("store unavailable: status %d, headers %v", rec.Code, rec.Header())
	}
}
