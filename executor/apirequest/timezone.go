package apirequest

import (
	"slices"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// ResolveTimezone checks Prefer: timezone against the time zones the
// server knows (pg_timezone_names, from the schema cache), as PostgREST
// does: an unknown zone is an invalid preference, ignored under lenient
// handling (the transaction keeps its time zone) and PGRST122 under
// handling=strict, listed where it was written among the other invalid
// ones. It makes the strict decision ParsePreferences left to it.
func (p *Preferences) ResolveTimezone(known func(string) bool) *apierr.Error {
	if p.Timezone == "" {
		return nil
	}
	if !known(p.Timezone) {
		p.Invalid = slices.Insert(p.Invalid, min(p.timezoneAt, len(p.Invalid)), p.timezoneToken)
		p.Timezone = ""
	}
	if p.Handling == "strict" && len(p.Invalid) > 0 {
		return apierr.InvalidPreferences(p.Invalid)
	}
	return nil
}
