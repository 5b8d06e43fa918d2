package security

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// /pgrest/config, in Caddy's admin API, shows each pgrest handler's
// configuration to whoever reaches the admin endpoint. Every setting that
// holds a secret, given every way pgrest takes it, comes out without the
// secret: as the placeholder or @file reference it was configured as, or
// REDACTED. The secrets are random, made for the run, so finding one in
// the answer can only mean it leaked.

// adminProbeRole logs the servers of these tests in, with a password
// made for the run.
const adminProbeRole = "admin_probe"

// adminSecretCase is one way of giving one secret-bearing setting.
type adminSecretCase struct {
	name string
	// lines are the case's subdirectives over the defaults (see
	// pgresttest.Directives).
	lines []string
	// roleSettings are pgrst.* settings of the probe role, name to value:
	// the in-database configuration.
	roleSettings map[string]string
	// field is the JSON key checked: name, name[index] of a list, or
	// name[key] of an object.
	field string
	// want is the field's value, exactly; or, with wantPart, a part of it.
	want     string
	wantPart string
}

// adminSecrets are the run's secrets, and what the probe role's password
// is made of.
type adminSecrets struct {
	passwordHead, passwordTail string // the password is head\ tail
	passphrase                 string // an HMAC jwt_secret
	jwkKey                     string // the k of an oct JWK
	appValue                   string // an app_settings value
	host, port, dbname         string
}

// all are every secret text, none of which may appear in any answer.
func (s adminSecrets) all() []string {
	return []string{s.passwordHead, s.passwordTail, s.passphrase, s.jwkKey, s.appValue}
}

// password is the probe role's password: a space in it, escaped with a
// backslash as an unquoted keyword/value connection string escapes it
// (pgx keeps the backslash).
func (s adminSecrets) password() string { return s.passwordHead + `\ ` + s.passwordTail }

func (s adminSecrets) uri() string { return db.DSNFor(adminProbeRole, s.password()) }

// uriWithQueryPassword gives the password as a query parameter.
func (s adminSecrets) uriWithQueryPassword() string {
	u := url.URL{Scheme: "postgres", User: url.User(adminProbeRole), Host: s.host + ":" + s.port, Path: "/" + s.dbname,
		RawQuery: url.Values{"password": {s.password()}, "sslmode": {"disable"}}.Encode()}
	return u.String()
}

// keywords is the keyword/value form, the password unquoted.
func (s adminSecrets) keywords() string {
	return fmt.Sprintf("host=%s port=%s dbname=%s user=%s sslmode=disable password=%s",
		s.host, s.port, s.dbname, adminProbeRole, s.password())
}

// quotedKeywords is the keyword/value form, the password quoted.
func (s adminSecrets) quotedKeywords() string {
	return fmt.Sprintf("host=%s port=%s dbname=%s user=%s sslmode=disable password='%s'",
		s.host, s.port, s.dbname, adminProbeRole, strings.ReplaceAll(s.password(), `\`, `\\`))
}

func (s adminSecrets) jwk() string {
	return `{"kty":"oct","alg":"HS256","k":"` + s.jwkKey + `"}`
}

func (s adminSecrets) jwks() string { return `{"keys":[` + s.jwk() + `]}` }

func newAdminSecrets(t *testing.T) adminSecrets {
	t.Helper()
	cfg, err := pgconn.ParseConfig(db.SuperDSN)
	if err != nil {
		t.Fatal(err)
	}
	key := randomSecret()
	return adminSecrets{
		passwordHead: "pwhead" + randomSecret(), passwordTail: "pwtail" + randomSecret(),
		passphrase: "passphrase-" + randomSecret(),
		jwkKey:     base64.RawURLEncoding.EncodeToString([]byte(key)),
		appValue:   "appvalue" + randomSecret(),
		host:       cfg.Host, port: strconv.Itoa(int(cfg.Port)), dbname: cfg.Database,
	}
}

// createProbeRole makes the probe role, which may become web_anon, with
// the run's password; it is dropped when t ends.
func createProbeRole(t *testing.T, s adminSecrets) {
	t.Helper()
	pgtest.Exec(t, db.SuperDSN, fmt.Sprintf(
		"create role %s login noinherit password %s; grant web_anon to %s",
		adminProbeRole, literal(s.password()), adminProbeRole))
	t.Cleanup(func() { pgtest.Exec(t, db.SuperDSN, "drop role "+adminProbeRole) })
}

// secretFile writes content to a file of t's and returns its path.
func secretFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte(content+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAdminConfigShowsNoSecret(t *testing.T) {
	s := newAdminSecrets(t)
	createProbeRole(t, s)
	q := pgresttest.Quote

	// Each way of giving a secret, from the environment, from a file, or
	// as the text of a file @path names.
	env := func(name, value string) string {
		t.Setenv(name, value)
		return "{env." + name + "}"
	}
	file := func(content string) string { return "{file." + secretFile(t, content) + "}" }
	at := func(content string) string { return "@" + secretFile(t, content) }

	jwkEnv, passphraseEnv, jwkFile, jwkAt := env("PGREST_PROBE_JWK", s.jwk()), env("PGREST_PROBE_PASSPHRASE", s.passphrase),
		file(s.jwk()), at(s.jwk())
	uriEnv, uriFile, uriAt := env("PGREST_PROBE_URI", s.uri()), file(s.uri()), at(s.uri())
	kwEnv, kwFile := env("PGREST_PROBE_KEYWORDS", s.keywords()), file(s.keywords())
	appEnv, appFile := env("PGREST_PROBE_APP", s.appValue), file(s.appValue)
	t.Setenv("PGREST_PROBE_EMPTY", "")
	const appName = "app.settings.probe"
	appField := "app_settings[" + appName + "]"
	app := func(v string) []string { return []string{"app_settings " + q(appName+"="+v)} }

	cases := []adminSecretCase{
		// jwt_secret: a passphrase, a JWK or a JWKS, inline, through a
		// placeholder, in a file @path names, or in the database.
		{name: "jwt_secret inline passphrase", lines: []string{"jwt_secret " + s.passphrase}, field: "jwt_secret", want: "REDACTED"},
		{name: "jwt_secret inline JWK", lines: []string{"jwt_secret " + q(s.jwk())}, field: "jwt_secret", want: "REDACTED"},
		{name: "jwt_secret inline JWKS", lines: []string{"jwt_secret " + q(s.jwks())}, field: "jwt_secret", want: "REDACTED"},
		{name: "jwt_secret JWK from {env.…}", lines: []string{"jwt_secret " + jwkEnv}, field: "jwt_secret", want: jwkEnv},
		{name: "jwt_secret passphrase from {env.…}", lines: []string{"jwt_secret " + passphraseEnv}, field: "jwt_secret", want: passphraseEnv},
		{name: "jwt_secret JWK from {file.…}", lines: []string{"jwt_secret " + jwkFile}, field: "jwt_secret", want: jwkFile},
		{name: "jwt_secret JWK from @file", lines: []string{"jwt_secret " + jwkAt}, field: "jwt_secret", want: jwkAt},
		{name: "pgrst.jwt_secret JWK", roleSettings: map[string]string{"jwt_secret": s.jwk()}, field: "jwt_secret", want: "REDACTED"},
		{name: "pgrst.jwt_secret passphrase", roleSettings: map[string]string{"jwt_secret": s.passphrase}, field: "jwt_secret", want: "REDACTED"},
		{name: "pgrst.jwt_secret @file", roleSettings: map[string]string{"jwt_secret": jwkAt}, field: "jwt_secret", want: jwkAt},
		{name: "pgrst.jwt_secret JWK over the Caddyfile's {env.…}", lines: []string{"jwt_secret " + passphraseEnv},
			roleSettings: map[string]string{"jwt_secret": s.jwk()}, field: "jwt_secret", want: "REDACTED"},

		// db_uri: a URI or keyword/value pairs, inline, through a
		// placeholder or in a file @path names.
		{name: "db_uri inline URI", lines: []string{"db_uri " + q(s.uri())}, field: "db_uri", wantPart: adminProbeRole + ":REDACTED@"},
		{name: "db_uri inline URI, password in the query", lines: []string{"db_uri " + q(s.uriWithQueryPassword())},
			field: "db_uri", wantPart: "password=REDACTED"},
		{name: "db_uri inline keywords", lines: []string{"db_uri " + q(s.keywords())}, field: "db_uri", wantPart: "password=REDACTED"},
		{name: "db_uri inline keywords, password quoted", lines: []string{"db_uri " + q(s.quotedKeywords())},
			field: "db_uri", wantPart: "password=REDACTED"},
		{name: "db_uri from {env.…}", lines: []string{"db_uri " + uriEnv}, field: "db_uri", want: uriEnv},
		{name: "db_uri keywords from {env.…}", lines: []string{"db_uri " + kwEnv}, field: "db_uri", want: kwEnv},
		{name: "db_uri from {file.…}", lines: []string{"db_uri " + uriFile}, field: "db_uri", want: uriFile},
		{name: "db_uri from @file", lines: []string{"db_uri " + uriAt}, field: "db_uri", want: uriAt},

		// db_replicas, as db_uri.
		{name: "db_replicas inline URI", lines: []string{"db_replicas " + q(s.uri())}, field: "db_replicas[0]",
			wantPart: adminProbeRole + ":REDACTED@"},
		{name: "db_replicas inline keywords", lines: []string{"db_replicas " + q(s.keywords())}, field: "db_replicas[0]",
			wantPart: "password=REDACTED"},
		{name: "db_replicas from {env.…}", lines: []string{"db_replicas " + uriEnv}, field: "db_replicas[0]", want: uriEnv},
		{name: "db_replicas from {file.…}", lines: []string{"db_replicas " + kwFile}, field: "db_replicas[0]", want: kwFile},
		{name: "db_replicas from @file", lines: []string{"db_replicas " + uriAt}, field: "db_replicas[0]", want: uriAt},

		// db_channel_uri, as db_uri but without @file.
		{name: "db_channel_uri inline URI", lines: []string{"db_channel_uri " + q(s.uri())}, field: "db_channel_uri",
			wantPart: adminProbeRole + ":REDACTED@"},
		{name: "db_channel_uri inline keywords", lines: []string{"db_channel_uri " + q(s.keywords())}, field: "db_channel_uri",
			wantPart: "password=REDACTED"},
		{name: "db_channel_uri from {env.…}", lines: []string{"db_channel_uri " + uriEnv}, field: "db_channel_uri", want: uriEnv},
		{name: "db_channel_uri from {file.…}", lines: []string{"db_channel_uri " + uriFile}, field: "db_channel_uri", want: uriFile},

		// app_settings: any text, inline or through a placeholder; an
		// app setting reads no file, so @text is the secret itself.
		{name: "app_settings inline", lines: app(s.appValue), field: appField, want: "REDACTED"},
		{name: "app_settings inline JSON object", lines: app(`{"token":"` + s.appValue + `"}`), field: appField, want: "REDACTED"},
		{name: "app_settings inline @text", lines: app("@" + s.appValue), field: appField, want: "REDACTED"},
		{name: "app_settings a placeholder, then the secret", lines: app("{env.PGREST_PROBE_EMPTY}" + s.appValue + "}"),
			field: appField, want: "REDACTED"},
		{name: "app_settings from {env.…}", lines: app(appEnv), field: appField, want: appEnv},
		{name: "app_settings from {file.…}", lines: app(appFile), field: appField, want: appFile},
	}
	base := map[string]string{
		"db_uri":       q(s.uri()),
		"db_schemas":   "api",
		"db_anon_role": "web_anon",
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			setProbeRoleSettings(t, c.roleSettings)
			admin := startWithAdmin(t, pgresttest.Directives(base, c.lines...))
			body := adminConfig(t, admin)
			for _, secret := range s.all() {
				if strings.Contains(body, secret) {
					t.Errorf("/pgrest/config shows the secret %q:\n%s", secret, body)
				}
			}
			var cfgs []map[string]any
			if err := json.Unmarshal([]byte(body), &cfgs); err != nil || len(cfgs) != 1 {
				t.Fatalf("/pgrest/config = %s (%v), want one handler's configuration", body, err)
			}
			got, _ := configValue(cfgs[0], c.field).(string)
			switch {
			case c.wantPart != "" && !strings.Contains(got, c.wantPart):
				t.Errorf("%s = %q, want it to hold %q", c.field, got, c.wantPart)
			case c.wantPart == "" && got != c.want:
				t.Errorf("%s = %q, want %q", c.field, got, c.want)
			}
		})
	}
}

// setProbeRoleSettings sets pgrst.* settings of the probe role, read when
// a server starts; they are reset when t ends.
func setProbeRoleSettings(t *testing.T, settings map[string]string) {
	t.Helper()
	if len(settings) == 0 {
		return
	}
	var sql strings.Builder
	for name, v := range settings {
		fmt.Fprintf(&sql, "alter role %s set pgrst.%s = %s;\n", adminProbeRole, name, literal(v))
	}
	pgtest.Exec(t, db.SuperDSN, sql.String())
	t.Cleanup(func() { pgtest.Exec(t, db.SuperDSN, "alter role "+adminProbeRole+" reset all") })
}

// startWithAdmin serves pgrest with dirs and Caddy's admin endpoint on,
// and returns the admin endpoint's base URL. Caddy stops when t ends.
func startWithAdmin(t *testing.T, dirs map[string]string) string {
	t.Helper()
	port, err := pgresttest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	// Not under t.TempDir(): its name is the test's, and Caddy would read
	// a case name's {env.…} in the log file's path as a placeholder.
	logDir, err := os.MkdirTemp("", "pgrest-admin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(logDir) })
	pgresttest.StartWith(t, dirs, pgresttest.Options{Admin: addr, LogFile: filepath.Join(logDir, "caddy.log")})
	return "http://" + addr
}

// adminConfig is the body of GET /pgrest/config.
func adminConfig(t *testing.T, admin string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, admin+"/pgrest/config", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pgresttest.Send(nil, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != http.StatusOK {
		t.Fatalf("/pgrest/config = %d %s", res.Status, res.Body)
	}
	return string(res.Body)
}

// configValue picks field out of a configuration: name, name[i] of a
// list or name[key] of an object.
func configValue(cfg map[string]any, field string) any {
	name, key, indexed := strings.Cut(strings.TrimSuffix(field, "]"), "[")
	v := cfg[name]
	if !indexed {
		return v
	}
	switch c := v.(type) {
	case []any:
		if i, err := strconv.Atoi(key); err == nil && i < len(c) {
			return c[i]
		}
	case map[string]any:
		return c[key]
	}
	return nil
}
