package main

import (
	"fmt"
	"strings"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// Diagnostic variants of caddy+raw (-diag-caddy-raw), each served by a
// caddy+raw site of its own whose handler is changed in one way, to find
// what caddy+raw loses against the ceiling (see the README's section on
// the bench):
//
//   - pool: the pipeline variant's pool of one connection per in-flight
//     request instead of caddy+raw's own -pool connections, as the
//     ceiling's D has;
//   - bg: context.Background() for the pool and the pipeline instead of
//     the request's context, as a loop outside a server passes: pgx then
//     registers no cancellation watch (context.AfterFunc) per call.
//
// Flags combine with '+': pool+bg.

// caddyRawDiag is a diagnostic variant's flags.
type caddyRawDiag struct {
	perRequest, background bool
}

// parseCaddyRawDiag parses flags such as "pool+bg"; "" is caddy+raw.
func parseCaddyRawDiag(flags string) (caddyRawDiag, error) {
	var d caddyRawDiag
	if flags == "" {
		return d, nil
	}
	for _, f := range strings.Split(flags, "+") {
		switch f {
		case "pool":
			d.perRequest = true
		case "bg":
			d.background = true
		default:
			return d, fmt.Errorf("caddy+raw variant %q: flags are pool and bg, joined with +", flags)
		}
	}
	return d, nil
}

func caddyRawDiagName(flags string) string { return "caddy+raw:" + flags }

// caddyRawDiagSites are the diagnostic variants' sites, with their base
// URLs by variant name.
func caddyRawDiagSites(variants []string) (text string, urls map[string]string, err error) {
	urls = map[string]string{}
	var b strings.Builder
	for _, v := range variants {
		if _, err := parseCaddyRawDiag(v); err != nil {
			return "", nil, err
		}
		port, err := pgresttest.FreePort()
		if err != nil {
			return "", nil, err
		}
		b.WriteString(caddyRawSite(port, v))
		urls[caddyRawDiagName(v)] = fmt.Sprintf("http://127.0.0.1:%d", port)
	}
	return b.String(), urls, nil
}
