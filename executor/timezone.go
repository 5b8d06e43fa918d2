package executor

import (
	"slices"
	"strings"

	"github.com/pgrest/caddy-pgrest/executor/schema"
)

// withTimezone puts Prefer: timezone (already checked against the
// server's time zones) among a request's settings, before the function's
// own (a function's SET TimeZone wins, as PostgreSQL would apply it
// inside the function) and after the role's, which the settings
// statement sets first. The zone travels as a bind argument's value; the
// name is the one PostgreSQL records in SET clauses, so the later of two
// settings of it wins.
func withTimezone(tz string, settings []schema.Setting) []schema.Setting {
	if tz == "" {
		return settings
	}
	return slices.Concat([]schema.Setting{{Name: "TimeZone", Value: tz}}, settings)
}

// timezoneApplied adds timezone=<zone> to Preference-Applied where
// PostgREST lists it: after handling, before max-affected.
func timezoneApplied(applied []string, tz string) []string {
	if tz == "" {
		return applied
	}
	at := slices.IndexFunc(applied, func(a string) bool { return strings.HasPrefix(a, "max-affected=") })
	if at < 0 {
		at = len(applied)
	}
	return slices.Insert(applied, at, "timezone="+tz)
}
