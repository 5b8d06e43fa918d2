package caddymodule

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// CORS as PostgREST answers it. PostgREST runs the wai-cors middleware
// with a fixed policy; what follows is that policy and that middleware's
// rules, so a browser sees the same headers from pgrest as from
// PostgREST:
//
//   - A request without Origin is not a CORS request and is left alone.
//   - With server_cors_allowed_origins unset every origin is allowed and
//     answered `Access-Control-Allow-Origin: *`, without credentials. When
//     it is set, a listed origin (compared byte for byte) is echoed back
//     with `Access-Control-Allow-Credentials: true`; any other origin gets
//     no CORS header at all, so the browser refuses the response.
//   - An OPTIONS request with an allowed Origin and a supported
//     Access-Control-Request-Method is a preflight and is answered here,
//     200 with an empty body, before authentication: a browser sends no
//     token with a preflight. Any other OPTIONS goes on to pgrest's own
//     OPTIONS answer: its Allow header and, without an allow-list, as
//     PostgREST's, a bare `Access-Control-Allow-Origin: *` without the
//     preflight headers, which a browser refuses for any preflight that
//     needs them.
//   - Every other request with an allowed Origin gets the origin headers
//     and Access-Control-Expose-Headers on its response, errors included.
//
// Beyond PostgREST, which leaves both to wai-cors' defaults, an
// allow-list makes every answer depend on the request's Origin, so every
// answer says `Vary: Origin` (preflights, errors, unlisted origins and
// requests without Origin included), so that no cache hands one origin's
// answer to another; and pgrest's OPTIONS answer carries no `*` then, so
// it opens to no unlisted origin (a listed one gets its origin headers,
// as on any other request).
//
// These constants are PostgREST's policy word for word: its method list
// with HEAD after it (wai-cors adds the simple methods), its exposed
// headers, a day of preflight caching.
const (
	corsAllowMethods  = "GET, POST, PATCH, PUT, DELETE, OPTIONS, HEAD"
	corsExposeHeaders = "Content-Encoding, Content-Location, Content-Range, Content-Type, " +
		"Date, Location, Server, Transfer-Encoding, Range-Unit"
	corsMaxAge = "86400"
)

// corsMethods are the methods a preflight may ask for, as wai-cors compares
// them: case-sensitively.
var corsMethods = []string{"GET", "POST", "PATCH", "PUT", "DELETE", "OPTIONS", "HEAD"}

// corsSimpleHeaders are the request headers wai-cors always allows, after
// the ones the preflight asked for.
var corsSimpleHeaders = []string{"Accept", "Accept-Language", "Content-Language"}

// serveCORS applies the CORS policy (server_cors_allowed_origins: allowed)
// to r. With an allow-list it first adds Vary: Origin, whatever the
// request. It answers a preflight itself and reports true; for every
// other request it sets the CORS response headers that apply (none, for a
// request that is not an allowed CORS request) and reports false, and the
// caller serves the request.
func serveCORS(w http.ResponseWriter, r *http.Request, allowed []string) bool {
	credentials := len(allowed) > 0
	if credentials {
		w.Header().Add("Vary", "Origin")
	}
	origins, ok := r.Header["Origin"]
	if !ok || len(origins) == 0 {
		return false
	}
	// WebSocket handshakes carry an Origin but are not CORS.
	if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return false
	}
	origin := origins[0]
	if credentials && !slices.Contains(allowed, origin) {
		return false
	}
	allowOrigin := "*"
	if credentials {
		allowOrigin = origin
	}

	if r.Method == http.MethodOptions {
		allowHeaders, ok := corsPreflight(r)
		if !ok {
			// Not a preflight pgrest approves: pgrest's own OPTIONS
			// answer, as in PostgREST. Its `*` is left out with an
			// allow-list; a listed origin gets its own instead.
			if credentials {
				setCORSResponse(w.Header(), allowOrigin, credentials)
			}
			return false
		}
		hdr := w.Header()
		setCORSOrigin(hdr, allowOrigin, credentials)
		hdr.Set("Access-Control-Allow-Methods", corsAllowMethods)
		if allowHeaders != "" {
			hdr.Set("Access-Control-Allow-Headers", allowHeaders)
		}
		hdr.Set("Access-Control-Max-Age", corsMaxAge)
		w.WriteHeader(http.StatusOK)
		return true
	}
	setCORSResponse(w.Header(), allowOrigin, credentials)
	return false
}

// setCORSResponse sets the CORS headers of an answer that is not a
// preflight's.
func setCORSResponse(hdr http.Header, allowOrigin string, credentials bool) {
	setCORSOrigin(hdr, allowOrigin, credentials)
	hdr.Set("Access-Control-Expose-Headers", corsExposeHeaders)
}

func setCORSOrigin(hdr http.Header, allowOrigin string, credentials bool) {
	hdr.Set("Access-Control-Allow-Origin", allowOrigin)
	if credentials {
		hdr.Set("Access-Control-Allow-Credentials", "true")
	}
}

// corsPreflight checks an OPTIONS request as a preflight. It reports false
// when the request is not one pgrest approves: no or an unsupported
// Access-Control-Request-Method, or an Access-Control-Request-Headers that
// is not a list of header names. Otherwise it returns the value of
// Access-Control-Allow-Headers: Authorization, the requested names as sent,
// then the simple headers not already named; empty when no
// Access-Control-Request-Headers was sent.
func corsPreflight(r *http.Request) (string, bool) {
	if !slices.Contains(corsMethods, r.Header.Get("Access-Control-Request-Method")) {
		return "", false
	}
	requested, ok := r.Header["Access-Control-Request-Headers"]
	if !ok || len(requested) == 0 {
		return "", true
	}
	// PostgREST allows whatever the preflight asks for, after
	// Authorization. A name the browser sends as "authorization" is kept
	// as sent beside it, as PostgREST does.
	names := []string{"Authorization"}
	for part := range strings.SplitSeq(requested[0], ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !isHeaderName(part) {
			return "", false
		}
		names = append(names, part)
	}
	for _, simple := range corsSimpleHeaders {
		if !slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, simple) }) {
			names = append(names, simple)
		}
	}
	return strings.Join(names, ", "), true
}

// checkCORSOrigins refuses entries of server_cors_allowed_origins that no
// browser's Origin can equal, since the comparison is exact: an empty
// entry, `*` (leave the setting out to allow every origin), and anything
// but scheme://host[:port]. `null` is refused too: it is the Origin of
// every sandboxed iframe, file: page and some redirects, which any page
// can take on, so allowing it would allow every site with credentials.
func checkCORSOrigins(origins []string) error {
	for _, o := range origins {
		switch o {
		case "":
			return fmt.Errorf("server_cors_allowed_origins: empty origin")
		case "*":
			return fmt.Errorf("server_cors_allowed_origins: %q is not an origin; leave server_cors_allowed_origins out to allow every origin", o)
		case "null":
			return fmt.Errorf("server_cors_allowed_origins: %q may not be allowed: sandboxed iframes and file: pages of any site send it", o)
		}
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" || u.Opaque != "" || u.User != nil ||
			u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(o, "?") || strings.HasSuffix(o, "#") {
			return fmt.Errorf("server_cors_allowed_origins: %q is not an origin such as https://app.example.com", o)
		}
	}
	return nil
}
