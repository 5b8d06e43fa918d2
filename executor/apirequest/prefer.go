package apirequest

import (
	"slices"
	"strconv"
	"strings"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// Preferences are the Prefer header's recognised preferences (RFC 7240),
// as PostgREST reads them. An empty field means "not given".
type Preferences struct {
	Return      string // minimal | headers-only | representation
	Count       string // exact | planned | estimated
	Resolution  string // merge-duplicates | ignore-duplicates
	Missing     string // default | null
	Handling    string // lenient | strict
	Tx          string // commit | rollback
	Timezone    string
	MaxAffected *int64
	// Invalid lists the preferences that were not understood.
	Invalid []string
}

// allowedValues are the values each enumerated preference takes.
var allowedValues = map[string][]string{
	"return":     {"minimal", "headers-only", "representation"},
	"count":      {"exact", "planned", "estimated"},
	"resolution": {"merge-duplicates", "ignore-duplicates"},
	"missing":    {"default", "null"},
	"handling":   {"lenient", "strict"},
	"tx":         {"commit", "rollback"},
}

// ParsePreferences reads every Prefer header. The first occurrence of a
// preference wins. With handling=strict, anything not understood is
// PGRST122; otherwise it is ignored. A timezone is taken as given, as
// PostgREST v16 takes it: PostgreSQL checks it when the transaction sets
// it, and a zone it does not know is its 400 whatever the handling.
func ParsePreferences(headers []string) (Preferences, *apierr.Error) {
	var p Preferences
	seen := map[string]bool{}
	for _, h := range headers {
		for token := range strings.SplitSeq(h, ",") {
			token = strings.TrimSpace(token)
			if token == "" {
				continue
			}
			name, value, _ := strings.Cut(token, "=")
			name, value = strings.TrimSpace(name), strings.TrimSpace(value)
			if seen[name] {
				continue
			}
			if !p.set(name, value) {
				p.Invalid = append(p.Invalid, token)
				continue
			}
			seen[name] = true
		}
	}
	if p.Handling == "strict" && len(p.Invalid) > 0 {
		return p, apierr.InvalidPreferences(p.Invalid)
	}
	return p, nil
}

// set records one preference, reporting whether it was understood.
func (p *Preferences) set(name, value string) bool {
	if allowed, ok := allowedValues[name]; ok && !slices.Contains(allowed, value) {
		return false
	}
	switch name {
	case "return":
		p.Return = value
	case "count":
		p.Count = value
	case "resolution":
		p.Resolution = value
	case "missing":
		p.Missing = value
	case "handling":
		p.Handling = value
	case "tx":
		p.Tx = value
	case "timezone":
		if value == "" {
			return false
		}
		p.Timezone = value
	case "max-affected":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 0 {
			return false
		}
		p.MaxAffected = &n
	default:
		return false
	}
	return true
}
