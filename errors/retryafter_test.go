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
