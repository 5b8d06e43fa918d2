package rpc

import "testing"

// RAISE SQLSTATE 'PGRST' from a called function: the response it asks for,
// or PGRST121 word for word when its JSON cannot be used. Fixture:
// testdata/20_rpc_shapes.sql.
func TestRaisePGRSTFromAFunction(t *testing.T) {
	s := startServer(t)
	const (
		parse       = `Could not parse JSON in the "RAISE SQLSTATE 'PGRST'" error`
		messageHint = "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'."
		detailHint  = "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'."
	)
	runCalls(t, s, []call{
		{name: "a usable RAISE answers with its status, headers and body",
			method: "POST", path: "/rpc/raise_custom", status: 402,
			want:   errorJSON("123", "Payment Required", "Quota exceeded", "Upgrade your plan"),
			header: map[string]string{"X-Powered-By": "Nerd Rage"}},
		{name: "a MESSAGE that is not JSON is 500 PGRST121 quoting it",
			method: "POST", path: "/rpc/raise_bad_message", status: 500,
			want: errorJSON("PGRST121", parse, "Invalid JSON value for MESSAGE: 'not json'", messageHint)},
		{name: "a DETAIL without a usable status is 500 PGRST121 quoting it",
			method: "POST", path: "/rpc/raise_bad_detail", status: 500,
			want: errorJSON("PGRST121", parse, `Invalid JSON value for DETAIL: '{"status": "x"}'`, detailHint)},
		{name: "a missing DETAIL is 500 PGRST121",
			method: "POST", path: "/rpc/raise_no_detail", status: 500,
			want: errorJSON("PGRST121", parse, "DETAIL is missing in the RAISE statement", detailHint)},
	})
}
