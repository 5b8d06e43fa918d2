package e2e

import (
	"net/http"
	"testing"
)

// Custom errors raised in database functions (contract: Custom errors).
func TestErrorsRaisedByFunctions(t *testing.T) {
	s := startServer(t)
	user := errUserToken(t)

	t.Run("a plain RAISE is 400 P0001 with its message and no details or hint", func(t *testing.T) {
		res := s.errDo(t, http.MethodPost, "/rpc/err_plain", `{}`)
		res.expectErrorBody(t, errWant{status: 400, code: "P0001", message: "boom"})
	})

	t.Run("SQLSTATE PT402 is status 402 with message, details and hint", func(t *testing.T) {
		res := s.errDo(t, http.MethodPost, "/rpc/err_payment", `{}`)
		res.expectErrorBody(t, errWant{status: 402, code: "PT402", message: "Payment Required",
			details: "Quota exceeded", hint: "Upgrade your plan"})
	})

	t.Run("SQLSTATE PT402 keeps its status when called with GET", func(t *testing.T) {
		res := s.errDo(t, http.MethodGet, "/rpc/err_payment", "")
		res.expectError(t, 402, "PT402")
	})

	for _, c := range []struct {
		name   string
		auth   []string
		status int
	}{
		{"RAISE insufficient_privilege is 401 for an anonymous request", nil, 401},
		{"RAISE insufficient_privilege is 403 for an authenticated request", user, 403},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := s.errDo(t, http.MethodPost, "/rpc/err_insufficient", `{}`, c.auth...)
			res.expectErrorBody(t, errWant{status: c.status, code: "42501", message: "err_insufficient: not for you"})
			wa := res.Header.Get("WWW-Authenticate")
			if c.status == 401 && wa != "Bearer" {
				t.Errorf("WWW-Authenticate %q, want Bearer", wa)
			}
			if c.status == 403 && wa != "" {
				t.Errorf("WWW-Authenticate %q on a 403", wa)
			}
		})
	}

	const (
		parseMessage    = `Could not parse JSON in the "RAISE SQLSTATE 'PGRST'" error`
		messageKeysHint = "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'."
		detailKeysHint  = "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'."
	)
	pgrst := []struct {
		name    string
		message string
		detail  string // "" leaves DETAIL out
		want    errWant
		headers map[string]string
	}{
		{
			name:    "SQLSTATE PGRST answers with the status, headers and body it names",
			message: `{"code":"123","message":"Payment Required","details":"Quota exceeded","hint":"Upgrade your plan"}`,
			detail:  `{"status":402,"headers":{"X-Powered-By":"Nerd Rage"}}`,
			want: errWant{status: 402, code: "123", message: "Payment Required",
				details: "Quota exceeded", hint: "Upgrade your plan"},
			headers: map[string]string{"X-Powered-By": "Nerd Rage"},
		},
		{
			name:    "SQLSTATE PGRST without headers, details or hint answers with nulls",
			message: `{"code":"PT418","message":"I am a teapot"}`,
			detail:  `{"status":418}`,
			want:    errWant{status: 418, code: "PT418", message: "I am a teapot"},
		},
		{
			name:    "SQLSTATE PGRST with a non-standard status and status_text keeps the status",
			message: `{"code":"X419","message":"Page expired"}`,
			detail:  `{"status":419,"status_text":"Page Expired","headers":{"X-A":"1","X-B":"2"}}`,
			want:    errWant{status: 419, code: "X419", message: "Page expired"},
			headers: map[string]string{"X-A": "1", "X-B": "2"},
		},
		{
			name:    "SQLSTATE PGRST with a MESSAGE that is not JSON is 500 PGRST121",
			message: `Payment Required`,
			detail:  `{"status":402}`,
			want: errWant{status: 500, code: "PGRST121", message: parseMessage,
				details: "Invalid JSON value for MESSAGE: 'Payment Required'", hint: messageKeysHint},
		},
		{
			name:    "SQLSTATE PGRST with a MESSAGE lacking code is 500 PGRST121",
			message: `{"message":"no code"}`,
			detail:  `{"status":402}`,
			want: errWant{status: 500, code: "PGRST121", message: parseMessage,
				details: `Invalid JSON value for MESSAGE: '{"message":"no code"}'`, hint: messageKeysHint},
		},
		{
			name:    "SQLSTATE PGRST with a DETAIL that is not JSON is 500 PGRST121",
			message: `{"code":"123","message":"m"}`,
			detail:  `{"status":402`,
			want: errWant{status: 500, code: "PGRST121", message: parseMessage,
				details: `Invalid JSON value for DETAIL: '{"status":402'`, hint: detailKeysHint},
		},
		{
			name:    "SQLSTATE PGRST with a DETAIL lacking status is 500 PGRST121",
			message: `{"code":"123","message":"m"}`,
			detail:  `{"headers":{"X-Powered-By":"Nerd Rage"}}`,
			want: errWant{status: 500, code: "PGRST121", message: parseMessage,
				details: `Invalid JSON value for DETAIL: '{"headers":{"X-Powered-By":"Nerd Rage"}}'`, hint: detailKeysHint},
		},
		{
			name:    "SQLSTATE PGRST without DETAIL is 500 PGRST121",
			message: `{"code":"123","message":"m"}`,
			want: errWant{status: 500, code: "PGRST121", message: parseMessage,
				details: "DETAIL is missing in the RAISE statement", hint: detailKeysHint},
		},
	}
	for _, c := range pgrst {
		t.Run(c.name, func(t *testing.T) {
			body := `{"message":` + errJSON(c.message)
			if c.detail != "" {
				body += `,"detail":` + errJSON(c.detail)
			}
			body += "}"
			res := s.errDo(t, http.MethodPost, "/rpc/err_pgrst", body)
			res.expectErrorBody(t, c.want)
			for k, v := range c.headers {
				if got := res.Header.Get(k); got != v {
					t.Errorf("header %s %q, want %q", k, got, v)
				}
			}
			if c.want.status == 500 && res.Header.Get("X-Powered-By") != "" {
				t.Errorf("a PGRST121 carries the headers of the unusable DETAIL")
			}
		})
	}
}
