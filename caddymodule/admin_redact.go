package caddymodule

import (
	"net/url"
	"reflect"
	"regexp"
	"strings"
)

// What the admin API's /pgrest/config shows of the settings that hold
// secrets: jwt_secret, db_uri, db_channel_uri, db_replicas and the values
// of app_settings. A value is shown only when its text names where the
// secret is rather than holding it: exactly one {env.NAME} or {file.PATH}
// placeholder, or, for the settings that read a file (jwt_secret, db_uri,
// db_replicas), an @path. Anything else is redacted: a connection string
// keeps all but its passwords, any other value becomes REDACTED.
//
// What is shown is the configured text, never the resolved one: a
// placeholder is resolved when the handler is provisioned, and its value
// is the secret. A jwt_secret set in the database is taken as written
// (placeholders are not resolved there), so only an @path of it is
// shown.

// redactedValue replaces a secret in the configuration.
const redactedValue = "REDACTED"

// shown is the effective configuration eff as /pgrest/config shows it.
func (l *liveConfig) shown(eff *Handler) Handler {
	c := *eff
	// eff's jwt_secret is the Caddyfile's resolved one unless the
	// database set another.
	fromDB := eff.JWTSecret != l.base.JWTSecret
	if !fromDB {
		c.JWTSecret = l.configuredJWTSecret
	}
	out := c.redacted()
	if fromDB && eff.JWTSecret != "" && !isFileReference(eff.JWTSecret) {
		out.JWTSecret = redactedValue
	}
	return out
}

// redacted is a copy of h, whose secret-bearing settings (those the
// table marks secret) are the text it was configured with, fit to show.
// An empty string has nothing to hide; every value of a map does.
func (h *Handler) redacted() Handler {
	c := *h
	for i := range params {
		p := &params[i]
		if p.secret == secretNone {
			continue
		}
		switch f := p.field(&c); f.Kind() {
		case reflect.String:
			if v := f.String(); v != "" {
				f.SetString(p.shown(v))
			}
		case reflect.Slice:
			if f.Len() > 0 {
				shown := make([]string, f.Len())
				for i, v := range f.Interface().([]string) {
					shown[i] = p.shown(v)
				}
				f.Set(reflect.ValueOf(shown))
			}
		case reflect.Map:
			if f.Len() > 0 {
				shown := make(map[string]string, f.Len())
				for k, v := range f.Interface().(map[string]string) {
					shown[k] = p.shown(v)
				}
				f.Set(reflect.ValueOf(shown))
			}
		}
	}
	return c
}

// shown is one value of the secret parameter p as the admin API shows
// it: a placeholder, or an @path where p reads one, as it is; a
// connection string with its passwords redacted; anything else
// REDACTED.
func (p *param) shown(v string) string {
	if isPlaceholder(v) || p.atFile && isFileReference(v) {
		return v
	}
	if p.secret == secretConnString {
		return redactConnString(v)
	}
	return redactedValue
}

// isPlaceholder says v is exactly one {env.NAME} or {file.PATH}
// placeholder, as Caddy's replacer reads one: from the opening brace to
// the first closing brace, which ends v. Text around a placeholder, or a
// second one, may be part of the secret.
func isPlaceholder(v string) bool {
	key, ok := strings.CutPrefix(v, "{")
	if !ok {
		return false
	}
	if key, ok = strings.CutSuffix(key, "}"); !ok || strings.ContainsAny(key, "{}") {
		return false
	}
	for _, prefix := range []string{"env.", "file."} {
		if name, ok := strings.CutPrefix(key, prefix); ok && name != "" {
			return true
		}
	}
	return false
}

// isFileReference says v is an @path, which a setting that reads a file
// takes as the file's name however it goes on.
func isFileReference(v string) bool { return strings.HasPrefix(v, "@") }

// uriPasswordParams are the query parameters of a connection URI that
// hold a password.
var uriPasswordParams = []string{"password", "sslpassword"}

// keywordPassword finds password=... (sslpassword=... too) in a
// keyword/value connection string: a quoted value up to its closing
// quote (or the end, when it has none), or an unquoted one up to a space
// that no backslash escapes.
var keywordPassword = regexp.MustCompile(`(?is)(password\s*=\s*)('(?:[^'\\]|\\.)*'?|(?:[^\s\\]|\\.)+)`)

// redactConnString hides the passwords of a connection string: a URI's
// (postgres:// or postgresql://, as pgx tells the forms apart) in its user
// info and query, a keyword/value string's in its password pairs. A URI
// that does not parse, so that its password cannot be found, is redacted
// whole.
func redactConnString(s string) string {
	if !strings.HasPrefix(s, "postgres://") && !strings.HasPrefix(s, "postgresql://") {
		return keywordPassword.ReplaceAllString(s, "${1}"+redactedValue)
	}
	u, err := url.Parse(s)
	if err != nil {
		return redactedValue
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return redactedValue
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), redactedValue)
	}
	for _, p := range uriPasswordParams {
		if q.Has(p) {
			q.Set(p, redactedValue)
			u.RawQuery = q.Encode()
		}
	}
	// pgx reads no fragment; whatever one holds is not shown.
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}
