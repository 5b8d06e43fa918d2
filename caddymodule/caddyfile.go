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
//	    db_uri                      <uri>
//	    db_schemas                  <schema> [<schema>...]
//	    db_anon_role                <role>
//	    db_pre_request              <function>
//	    db_extra_search_path        [<schema>...]
//	    db_max_rows                 <n>
//	    db_pool                     <n>
//	    db_pool_acquisition_timeout <duration>
//	    db_aggregates_enabled       true|false
//	    db_plan_enabled             true|false
//	    db_plan_analyze_roles       <role> [<role>...]
//	    db_prepared_statements      true|false
//	    db_tx_end                   commit|commit-allow-override|rollback|rollback-allow-override
//	    db_channel                  <channel>
//	    db_channel_enabled          true|false
//	    db_channel_uri              <uri>
//	    jwt_secret                  <passphrase|JWK|JWKS|@path|https://JWKS-URL>
//	    jwt_secret_is_base64        true|false
//	    jwt_aud                     <audience>
//	    jwt_role_claim_key          <json path>
//	    jwt_cache_max_entries       <n>
//	    db_legacy_claims            auto|true|false
//	    openapi_mode                follow-privileges|ignore-privileges|disabled
//	    openapi_server_proxy_uri    <url>
//	    openapi_version             2.0|3.1
//	    app_settings                <name>=<value>...
//	    app_settings {
//	        <name> <value>
//	    }
//	    server_timing_enabled       true|false
//	    max_body_size               <size>
//	    server_cors_allowed_origins <origin> [<origin>...]
//	    ...                         (the rest: see unmarshalSetting)
//	}
//
// Every PostgREST v16 parameter is a subdirective (params.go lists them);
// those whose concern is Caddy's (server_port, server_host, the admin
// server...) are refused with the Caddy directive to use instead.
// db_role_claim_key is accepted for jwt_role_claim_key. Lists
// (db_schemas, db_extra_search_path, db_plan_analyze_roles) may also be
// written comma-separated,
// as in PostgREST's configuration file; db_extra_search_path with no value
// adds no schema. A duration without a unit is seconds, as in PostgREST.
// A size is bytes or a humanized size such as 10MB or 1MiB, as in Caddy's
// request_body max_size.
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
		name := canonicalParam(sub)
		if isAppSettingParam(name) {
			name = "app_settings"
		}
		if seen[name] && name != "app_settings" {
			return d.Errf("%s: given more than once", sub)
		}
		seen[name] = true

		var err error
		switch name {
		case "db_uri":
			h.DBURI, err = oneArg(d, sub)
		case "db_schemas":
			h.DBSchemas, err = listArgs(d, sub, false)
		case "db_anon_role":
			h.DBAnonRole, err = oneArg(d, sub)
		case "db_pre_request":
			h.DBPreRequest, err = oneArg(d, sub)
		case "db_extra_search_path":
			h.DBExtraSearchPath, err = listArgs(d, sub, true)
		case "db_max_rows":
			h.DBMaxRows, err = intArg(d, sub, 0)
		case "db_pool":
			var n int64
			n, err = intArg(d, sub, 1)
			h.DBPool = int(n)
		case "db_pool_acquisition_timeout":
			h.DBPoolAcquisitionTimeout, err = durationArg(d, sub)
		case "db_aggregates_enabled":
			h.DBAggregatesEnabled, err = boolArg(d, sub)
		case "db_plan_enabled":
			h.DBPlanEnabled, err = boolArg(d, sub)
		case "db_plan_analyze_roles":
			h.DBPlanAnalyzeRoles, err = listArgs(d, sub, false)
		case "db_prepared_statements":
			h.DBPreparedStatements, err = boolPtrArg(d, sub)
		case "db_tx_end":
			h.DBTxEnd, err = oneArg(d, sub)
		case "db_channel":
			h.DBChannel, err = oneArg(d, sub)
		case "db_channel_uri":
			h.DBChannelURI, err = oneArg(d, sub)
		case "db_channel_enabled":
			h.DBChannelEnabled, err = boolPtrArg(d, sub)
		case "jwt_secret":
			h.JWTSecret, err = oneArg(d, sub)
		case "jwt_secret_is_base64":
			h.JWTSecretIsBase64, err = boolArg(d, sub)
		case "jwt_aud":
			h.JWTAud, err = oneArg(d, sub)
		case "jwt_role_claim_key":
			h.JWTRoleClaimKey, err = oneArg(d, sub)
		case "jwt_cache_max_entries":
			var n int64
			n, err = intArg(d, sub, 0)
			h.JWTCacheMaxEntries = new(int(n))
		case "db_legacy_claims":
			h.DBLegacyClaims, err = oneArg(d, sub)
		case "openapi_mode":
			h.OpenAPIMode, err = oneArg(d, sub)
		case "openapi_server_proxy_uri":
			h.OpenAPIServerProxyURI, err = oneArg(d, sub)
		case "openapi_version":
			h.OpenAPIVersion, err = oneArg(d, sub)
		case "app_settings":
			if isAppSettingParam(sub) {
				err = h.unmarshalAppSetting(d, sub)
			} else {
				err = h.unmarshalAppSettings(d)
			}
		case "server_timing_enabled":
			h.ServerTimingEnabled, err = boolArg(d, sub)
		case "max_body_size":
			h.MaxBodySize, err = sizeArg(d, sub)
		case "server_cors_allowed_origins":
			h.ServerCORSAllowedOrigins, err = listArgs(d, sub, false)
		default:
			var known bool
			if known, err = h.unmarshalSetting(d, name, sub); !known {
				known, err = h.unmarshalReplicaSetting(d, name, sub)
			}
			if !known {
				if why, refused := refusal(name); refused {
					return d.Errf("%s: %s", sub, why)
				}
				return d.Errf("unrecognized subdirective %q", sub)
			}
		}
		if err != nil {
			return err
		}
	}
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

func boolPtrArg(d *caddyfile.Dispenser, sub string) (*bool, error) {
	b, err := boolArg(d, sub)
	if err != nil {
		return nil, err
	}
	return &b, nil
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
