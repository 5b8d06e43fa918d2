package caddymodule

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("pgrest", parseCaddyfile)
	// A directive needs a place in the order to be used outside a route
	// block, inside handle and handle_path included. pgrest answers every
	// request it matches, so it sits with the responding handlers: after
	// respond, error, abort and metrics, so `respond /healthz 200` or
	// `metrics /metrics` beside it keep their paths, and before
	// reverse_proxy, php_fastcgi and file_server, so a site can fall back to
	// a proxy or static files for the paths pgrest's matcher leaves.
	httpcaddyfile.RegisterDirectiveOrder("pgrest", httpcaddyfile.Before, "reverse_proxy")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	handler := new(Handler)
	if err := handler.UnmarshalCaddyfile(h.Dispenser); err != nil {
		return nil, err
	}
	return handler, nil
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	pgrest [<matcher>] {
//	    <parameter> <value>...
//	    app_settings {
//	        <name> <value>
//	    }
//	}
//
// The parameters are those of the table in params.go (README.md has it
// for users), by name or alias; those whose concern is Caddy's
// (server_port, server_host, the admin server...) are refused with the
// Caddy directive to use instead. Lists may also be written
// comma-separated, as in PostgREST's configuration file; `""` is the
// empty list where the table allows it. A duration without a unit is
// seconds, as in PostgREST. A size is bytes or a humanized size such as
// 10MB or 1MiB, as in Caddy's request_body max_size.
// Use {env.NAME} or {file./path} for secrets: unlike {$NAME}, they are
// resolved when the handler starts and stay out of the adapted JSON.
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // consume directive name
	if d.NextArg() {
		return d.Errf("pgrest takes no arguments, only a block of subdirectives; got %q", d.Val())
	}

	seen := make(map[string]bool)
	for d.NextBlock(0) {
		sub := d.Val()
		p, ok := lookupParam(sub)
		if !ok {
			return d.Errf("unrecognized subdirective %q", sub)
		}
		if seen[p.name] && p.kind != kindAppSettings && p.kind != kindRateLimit {
			return d.Errf("%s: given more than once", sub)
		}
		seen[p.name] = true
		if p.caddy != "" {
			return d.Errf("%s: %s", sub, p.caddy)
		}
		if err := p.unmarshal(d, sub, h); err != nil {
			return err
		}
	}
	return nil
}

// unmarshal reads the value of p, written sub, into h, as p's kind says.
func (p *param) unmarshal(d *caddyfile.Dispenser, sub string, h *Handler) error {
	var v any
	var err error
	switch p.kind {
	case kindString:
		v, err = oneArg(d, sub)
	case kindList:
		v, err = listArgs(d, sub, p.empty != emptyIsDefault)
	case kindURIs:
		var uris []string
		if uris, err = args(d, sub); err == nil && len(uris) == 0 {
			err = d.Errf("%s: expected at least one connection string", sub)
		}
		v = uris
	case kindBool:
		v, err = boolArg(d, sub)
	case kindInt:
		v, err = intArg(d, sub, p.min)
	case kindDuration:
		v, err = durationArg(d, sub)
	case kindDurationOrZero:
		v, err = durationOrZeroArg(d, sub)
	case kindSize:
		v, err = sizeArg(d, sub)
	case kindAppSettings:
		if isAppSettingParam(sub) {
			return h.unmarshalAppSetting(d, sub)
		}
		return h.unmarshalAppSettings(d)
	case kindRateLimit:
		return h.unmarshalRateLimit(d, sub)
	default:
		return d.Errf("unrecognized subdirective %q", sub)
	}
	if err != nil {
		return err
	}
	p.set(h, v)
	return nil
}

// args returns the rest of the line and refuses a block after it.
func args(d *caddyfile.Dispenser, sub string) ([]string, error) {
	a := d.RemainingArgs()
	if d.NextBlock(d.Nesting()) {
		return nil, d.Errf("%s: takes no block", sub)
	}
	return a, nil
}

func oneArg(d *caddyfile.Dispenser, sub string) (string, error) {
	a, err := args(d, sub)
	if err != nil {
		return "", err
	}
	if len(a) != 1 {
		return "", d.Errf("%s: expected one value, got %d", sub, len(a))
	}
	return a[0], nil
}

// listArgs reads names given as arguments, comma-separated, or both.
func listArgs(d *caddyfile.Dispenser, sub string, emptyOK bool) ([]string, error) {
	a, err := args(d, sub)
	if err != nil {
		return nil, err
	}
	out := []string{}
	if emptyOK && len(a) == 1 && a[0] == "" {
		// `""`: PostgREST's way of writing an empty list.
		return out, nil
	}
	for i, arg := range a {
		parts := strings.Split(arg, ",")
		for j, part := range parts {
			part = strings.TrimSpace(part)
			// "a, b" is two arguments, "a," and "b": a comma that joins
			// two arguments leaves no name out.
			joining := (j == len(parts)-1 && i < len(a)-1) || (j == 0 && i > 0)
			if part == "" && joining && len(parts) > 1 {
				continue
			}
			if part == "" {
				return nil, d.Errf("%s: empty name in %q", sub, arg)
			}
			out = append(out, part)
		}
	}
	if len(out) == 0 && !emptyOK {
		return nil, d.Errf("%s: expected at least one value", sub)
	}
	return out, nil
}

func intArg(d *caddyfile.Dispenser, sub string, minimum int64) (int64, error) {
	s, err := oneArg(d, sub)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, d.Errf("%s: %q is not an integer", sub, s)
	}
	if n < minimum {
		return 0, d.Errf("%s: must be at least %d, got %d", sub, minimum, n)
	}
	return n, nil
}

func durationArg(d *caddyfile.Dispenser, sub string) (caddy.Duration, error) {
	s, err := oneArg(d, sub)
	if err != nil {
		return 0, err
	}
	var dur time.Duration
	if secs, err := strconv.ParseInt(s, 10, 32); err == nil {
		dur = time.Duration(secs) * time.Second
	} else if dur, err = caddy.ParseDuration(s); err != nil {
		return 0, d.Errf("%s: %q is not a duration such as 10s", sub, s)
	}
	if dur <= 0 {
		return 0, d.Errf("%s: must be more than 0, got %q", sub, s)
	}
	return caddy.Duration(dur), nil
}

// sizeArg reads a size the way Caddy's request_body max_size does.
func sizeArg(d *caddyfile.Dispenser, sub string) (int64, error) {
	s, err := oneArg(d, sub)
	if err != nil {
		return 0, err
	}
	n, err := humanize.ParseBytes(s)
	if err != nil {
		return 0, d.Errf("%s: %q is not a size such as 10MB", sub, s)
	}
	if n == 0 || n > math.MaxInt64 {
		return 0, d.Errf("%s: must be between 1 byte and %d bytes, got %q", sub, int64(math.MaxInt64), s)
	}
	return int64(n), nil
}

func boolArg(d *caddyfile.Dispenser, sub string) (bool, error) {
	s, err := oneArg(d, sub)
	if err != nil {
		return false, err
	}
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, d.Errf("%s: expected true or false, got %q", sub, s)
}

// unmarshalAppSettings reads `app_settings name=value...` and the block
// form, one `name value` per line. It may be given more than once.
func (h *Handler) unmarshalAppSettings(d *caddyfile.Dispenser) error {
	if h.AppSettings == nil {
		h.AppSettings = make(map[string]string)
	}
	set := func(name, value string) error {
		if _, dup := h.AppSettings[name]; dup {
			return d.Errf("app_settings: %q given more than once", name)
		}
		if err := checkSettingName(name); err != nil {
			return d.Errf("app_settings: %v", err)
		}
		h.AppSettings[name] = value
		return nil
	}

	line := d.RemainingArgs()
	for _, arg := range line {
		name, value, ok := strings.Cut(arg, "=")
		if !ok {
			return d.Errf("app_settings: expected name=value, got %q", arg)
		}
		if err := set(name, value); err != nil {
			return err
		}
	}
	n := 0
	for nesting := d.Nesting(); d.NextBlock(nesting); n++ {
		name := d.Val()
		a := d.RemainingArgs()
		if len(a) != 1 {
			return d.Errf("app_settings: %s: expected one value, got %d", name, len(a))
		}
		if err := set(name, a[0]); err != nil {
			return err
		}
	}
	if len(line) == 0 && n == 0 {
		return d.Errf("app_settings: expected name=value pairs or a block")
	}
	return nil
}
