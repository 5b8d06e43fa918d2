package caddymodule

import (
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// durationOrZeroArg is durationArg that also takes 0 (no limit).
func durationOrZeroArg(d *caddyfile.Dispenser, sub string) (caddy.Duration, error) {
	s, err := oneArg(d, sub)
	if err != nil {
		return 0, err
	}
	if s == "0" {
		return 0, nil
	}
	dur, err := parseSeconds(s)
	if err != nil || dur < 0 {
		return 0, d.Errf("%s: %q is not a duration such as 10s, or 0", sub, s)
	}
	return caddy.Duration(dur), nil
}

// parseSeconds reads a duration as PostgREST's whole seconds or as a
// Caddy duration such as 10s.
func parseSeconds(s string) (time.Duration, error) {
	if secs, err := strconv.ParseInt(s, 10, 32); err == nil {
		return time.Duration(secs) * time.Second, nil
	}
	return caddy.ParseDuration(s)
}

// unmarshalAppSetting reads PostgREST's own form of an app setting,
// `app.settings.<name> <value>`.
func (h *Handler) unmarshalAppSetting(d *caddyfile.Dispenser, name string) error {
	value, err := oneArg(d, name)
	if err != nil {
		return err
	}
	if h.AppSettings == nil {
		h.AppSettings = make(map[string]string)
	}
	if _, dup := h.AppSettings[name]; dup {
		return d.Errf("%s: given more than once", name)
	}
	h.AppSettings[name] = value
	return nil
}
