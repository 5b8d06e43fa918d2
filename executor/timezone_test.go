package executor

import (
	"slices"
	"testing"

	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

func TestTimezoneAppliedGoesBeforeMaxAffected(t *testing.T) {
	cases := []struct {
		in   []string
		tz   string
		want []string
	}{
		{nil, "", nil},
		{nil, "UTC", []string{"timezone=UTC"}},
		{[]string{"count=exact", "handling=strict"}, "UTC", []string{"count=exact", "handling=strict", "timezone=UTC"}},
		{[]string{"return=minimal", "handling=strict", "max-affected=5"}, "Europe/Paris",
			[]string{"return=minimal", "handling=strict", "timezone=Europe/Paris", "max-affected=5"}},
	}
	for _, c := range cases {
		if got := timezoneApplied(slices.Clone(c.in), c.tz); !slices.Equal(got, c.want) {
			t.Errorf("timezoneApplied(%q, %q) = %q, want %q", c.in, c.tz, got, c.want)
		}
	}
}

func TestWithTimezoneComesBeforeTheFunctionsSettings(t *testing.T) {
	fn := []schemacache.Setting{{Name: "TimeZone", Value: "Asia/Tokyo"}}
	got := withTimezone("UTC", fn)
	want := []schemacache.Setting{{Name: "TimeZone", Value: "UTC"}, {Name: "TimeZone", Value: "Asia/Tokyo"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// The zone wins over nothing else when there is no function setting,
	// and no zone adds nothing.
	if got := withTimezone("", fn); !slices.Equal(got, fn) {
		t.Errorf("no zone: got %v", got)
	}
	// variableSettings lets the later of two settings of a name win.
	if vs := variableSettings(nil, got, nil); !slices.Equal(vs, fn) {
		t.Errorf("variable settings %v", vs)
	}
}
