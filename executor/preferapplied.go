package executor

import (
	"strconv"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
)

// appliedWritePreferences is a write's Preference-Applied in PostgREST's
// order: resolution, missing, return, count, tx (tx lists what the
// transaction honoured), handling, and max-affected when it was enforced.
// resolution and missing are the values applied ("" when none was).
func appliedWritePreferences(p apirequest.Preferences, resolution, missing string, tx []string, maxAffected bool) []string {
	var list []string
	for _, a := range []string{resolution, missing, prefix("return=", p.Return), prefix("count=", p.Count)} {
		if a != "" {
			list = append(list, a)
		}
	}
	list = append(list, tx...)
	if p.Handling != "" {
		list = append(list, "handling="+p.Handling)
	}
	if maxAffected {
		list = append(list, "max-affected="+strconv.FormatInt(*p.MaxAffected, 10))
	}
	return list
}

// appliedReadPreferences is a read's Preference-Applied in PostgREST's
// order: count, tx (what the transaction honoured), handling.
func appliedReadPreferences(p apirequest.Preferences, tx []string) []string {
	var list []string
	if p.Count != "" {
		list = append(list, "count="+p.Count)
	}
	list = append(list, tx...)
	if p.Handling != "" {
		list = append(list, "handling="+p.Handling)
	}
	return list
}
