package apirequest

import (
	"slices"
	"testing"
)

func TestResolveTimezone(t *testing.T) {
	known := func(tz string) bool { return tz == "America/Los_Angeles" || tz == "UTC" }
	cases := []struct {
		name, prefer string
		// want is the zone kept; code the error ("" for none); invalid the
		// preferences reported.
		want, code string
		invalid    []string
	}{
		{name: "a known zone is kept", prefer: "timezone=America/Los_Angeles", want: "America/Los_Angeles"},
		{name: "an unknown zone is dropped under lenient handling", prefer: "handling=lenient, timezone=Invalid/Timezone",
			invalid: []string{"timezone=Invalid/Timezone"}},
		{name: "an unknown zone is dropped without handling", prefer: "timezone=Invalid/Timezone",
			invalid: []string{"timezone=Invalid/Timezone"}},
		{name: "zones compare exactly", prefer: "timezone=america/los_angeles", invalid: []string{"timezone=america/los_angeles"}},
		{name: "an unknown zone is PGRST122 under strict handling", prefer: "handling=strict, timezone=Invalid/Timezone",
			code: "PGRST122", invalid: []string{"timezone=Invalid/Timezone"}},
		{name: "strict handling lists the zone in its place", prefer: "handling=strict, foo, timezone=Bad, bar",
			code: "PGRST122", invalid: []string{"foo", "timezone=Bad", "bar"}},
		{name: "a known zone leaves strict handling to the others", prefer: "handling=strict, foo, timezone=UTC",
			want: "UTC", code: "PGRST122", invalid: []string{"foo"}},
		{name: "a known zone under strict handling is fine", prefer: "handling=strict, timezone=UTC", want: "UTC"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParsePreferences([]string{c.prefer})
			if err != nil {
				t.Fatalf("ParsePreferences: %+v", err)
			}
			aerr := p.ResolveTimezone(known)
			if p.Timezone != c.want || !slices.Equal(p.Invalid, c.invalid) {
				t.Errorf("timezone %q invalid %q, want %q %q", p.Timezone, p.Invalid, c.want, c.invalid)
			}
			switch {
			case c.code == "" && aerr != nil:
				t.Errorf("unexpected error %+v", aerr)
			case c.code != "" && (aerr == nil || aerr.Code != c.code || aerr.Status != 400):
				t.Errorf("error %+v, want %s", aerr, c.code)
			case c.code != "" && aerr.Details != "Invalid preferences: "+joinComma(c.invalid):
				t.Errorf("details %v", aerr.Details)
			}
		})
	}
}

func joinComma(list []string) string {
	out := ""
	for i, s := range list {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}
