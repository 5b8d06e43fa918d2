package read

import "testing"

// TestPreferTimezone checks Prefer: timezone against PostgREST's spec: a
// zone of pg_timezone_names sets the transaction's TimeZone and is
// reported applied; an unknown one is ignored, or PGRST122 with
// handling=strict.
func TestPreferTimezone(t *testing.T) {
	// One connection: a zone set for one request must not reach the next.
	s := startReprServer(t, "db_pool 1")
	losAngeles := `[{"t":"2023-10-18T05:37:59.611-07:00"},{"t":"2023-10-18T07:37:59.611-07:00"},{"t":"2023-10-18T09:37:59.611-07:00"}]`
	utc := `[{"t":"2023-10-18T12:37:59.611+00:00"},{"t":"2023-10-18T14:37:59.611+00:00"},{"t":"2023-10-18T16:37:59.611+00:00"}]`
	cases := []struct {
		name, prefer string
		status       int
		want         string
		applied      string
	}{
		{"a zone with handling=strict", "handling=strict, timezone=America/Los_Angeles", 200, losAngeles,
			"handling=strict, timezone=America/Los_Angeles"},
		{"a zone without handling", "timezone=America/Los_Angeles", 200, losAngeles, "timezone=America/Los_Angeles"},
		{"the next request is back in the database's zone", "", 200, utc, ""},
		{"an unknown zone with handling=strict", "handling=strict, timezone=Invalid/Timezone", 400,
			`{"code":"PGRST122","details":"Invalid preferences: timezone=Invalid/Timezone","hint":null,"message":"Invalid preferences given with handling=strict"}`, ""},
		{"an unknown zone without handling is ignored", "timezone=Invalid/Timezone", 200, utc, ""},
		{"an unknown zone with handling=lenient is ignored", "handling=lenient, timezone=Invalid/Timezone", 200, utc, "handling=lenient"},
		{"zone names compare exactly", "timezone=america/los_angeles", 200, utc, ""},
		{"a zone that is SQL stays a value", "timezone=UTC'; select 1; --", 200, utc, ""},
		{"a zone after count", "timezone=Asia/Kolkata, count=exact", 200,
			`[{"t":"2023-10-18T18:07:59.611+05:30"},{"t":"2023-10-18T20:07:59.611+05:30"},{"t":"2023-10-18T22:07:59.611+05:30"}]`,
			"count=exact, timezone=Asia/Kolkata"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var headers []string
			if c.prefer != "" {
				headers = []string{"Prefer", c.prefer}
			}
			res := s.Get(t, "/timestamps?order=t", headers...)
			res.Expect(t, c.status, c.want, map[string]string{"Preference-Applied": c.applied})
		})
	}
	t.Run("a zone also applies to a filter's value", func(t *testing.T) {
		res := s.Get(t, "/timestamps?t=lt.2023-10-18T07:00:00", "Prefer", "timezone=America/Los_Angeles")
		res.Expect(t, 200, `[{"t":"2023-10-18T05:37:59.611-07:00"}]`, nil)
	})
}
