package executor

import (
	"slices"
	"strings"

	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// withTimezone puts Prefer: timezone among a request's settings, before
// the function's own (a function's SET TimeZone wins, as PostgreSQL would
// apply it inside the function) and after the role's, which the settings
// statement sets first. The zone travels as a bind argument's value, as
// the client wrote it: a name, an abbreviation or a numeric offset
// (+05:30, -4) as SET TimeZone reads them (POSIX signs: +05:30 is west of
// Greenwich), and one PostgreSQL refuses fails the settings statement with
// its 400 (22023), as in PostgREST v16. The name is the one PostgreSQL
// records in SET clauses, so the later of two settings of it wins.
func withTimezone(tz string, settings []schemacache.Setting) []schemacache.Setting {
	if tz == "" {
		return settings
	}
	return slices.Concat([]schemacache.Setting{{Name: "TimeZone", Value: tz}}, settings)
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
