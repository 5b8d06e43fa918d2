package read

import "testing"

// TestPreferTimezone mirrors PostgREST v16's TimezoneSpec: the zone is
// handed to PostgreSQL as written, a name or a numeric offset (SET
// TimeZone's POSIX sign: +05:30 is five and a half hours west), sets the
// transaction's TimeZone and is reported applied; a zone PostgreSQL
// refuses is its 400 (22023) whatever handling says, leap seconds
// included.
func TestPreferTimezone(t *testing.T) {
	// One connection: a zone set for one request must not reach the next.
	s := startReprServer(t, "db_pool 1")
	losAngeles := `[{"t":"2023-10-18T05:37:59.611-07:00"},{"t":"2023-10-18T07:37:59.611-07:00"},{"t":"2023-10-18T09:37:59.611-07:00"}]`
	utc := `[{"t":"2023-10-18T12:37:59.611+00:00"},{"t":"2023-10-18T14:37:59.611+00:00"},{"t":"2023-10-18T16:37:59.611+00:00"}]`
	invalid := `{"code":"22023","details":null,"hint":null,"message":"invalid value for parameter \"TimeZone\": \"Invalid/Timezone\""}`
	cases := []struct {
		name, prefer string
		status       int
		want         string
		applied      string
	}{
		{"should change timezone with handling=strict", "handling=strict, timezone=America/Los_Angeles", 200, losAngeles,
			"handling=strict, timezone=America/Los_Angeles"},
		{"should change timezone without handling=strict", "timezone=America/Los_Angeles", 200, losAngeles, "timezone=America/Los_Angeles"},
		{"the next request is back in the database's zone", "", 200, utc, ""},
		{"should throw error without handling", "timezone=Invalid/Timezone", 400, invalid, ""},
		{"should throw error with handling=strict", "handling=strict, timezone=Invalid/Timezone", 400, invalid, ""},
		{"should throw error with handling=lenient", "handling=lenient, timezone=Invalid/Timezone", 400, invalid, ""},
		{"should change with positive offset", "timezone=+05:30", 200,
			`[{"t":"2023-10-18T07:07:59.611-05:30"},{"t":"2023-10-18T09:07:59.611-05:30"},{"t":"2023-10-18T11:07:59.611-05:30"}]`,
			"timezone=+05:30"},
		{"should change with negative offset", "timezone=-4", 200,
			`[{"t":"2023-10-18T08:37:59.611-04:00"},{"t":"2023-10-18T10:37:59.611-04:00"},{"t":"2023-10-18T12:37:59.611-04:00"}]`,
			"timezone=-4"},
		{"fails on leap seconds", "timezone=05:30:15", 400,
			`{"code":"22023","details":"PostgreSQL does not support leap seconds.","hint":null,"message":"time zone \"05:30:15\" appears to use leap seconds"}`, ""},
		{"zone names are PostgreSQL's, in any case", "timezone=america/los_angeles", 200, losAngeles, "timezone=america/los_angeles"},
		{"a zone that is SQL stays a value", "timezone=UTC'; select 1; --", 400,
			`{"code":"22023","details":null,"hint":null,"message":"invalid value for parameter \"TimeZone\": \"UTC'; select 1; --\""}`, ""},
		{"a zone after count", "timezone=Asia/Kolkata, count=exact", 200,
			`[{"t":"2023-10-18T18:07:59.611+05:30"},{"t":"2023-10-18T20:07:59.611+05:30"},{"t":"2023-10-18T22:07:59.611+05:30"}]`,
			"count=exact, timezone=Asia/Kolkata"},
		{"the connection serves on in the database's zone after a refused zone", "", 200, utc, ""},
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
