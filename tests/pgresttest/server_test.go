package pgresttest

import (
	"maps"
	"testing"
)

func TestDirectivesReplaceAndRemoveDefaults(t *testing.T) {
	base := map[string]string{"db_uri": "postgres://a", "db_schemas": "api", "jwt_secret": "s"}
	got := Directives(base, "db_schemas api v2", "-jwt_secret", "db_max_rows 10")
	want := map[string]string{"db_uri": "postgres://a", "db_schemas": "api v2", "db_max_rows": "10"}
	if !maps.Equal(got, want) {
		t.Errorf("Directives = %v, want %v", got, want)
	}
	if len(base) != 3 || base["db_schemas"] != "api" || base["jwt_secret"] != "s" {
		t.Errorf("Directives changed base: %v", base)
	}
}

func TestCaddyfileWritesDirectivesInNameOrder(t *testing.T) {
	got := caddyfile(8080, map[string]string{"jwt_secret": "s", "db_uri": "postgres://a"}, Options{})
	want := "{\n\tadmin off\n\tauto_https off\n\tpersist_config off\n}\n" +
		"http://127.0.0.1:8080 {\n\tpgrest {\n\t\tdb_uri postgres://a\n\t\tjwt_secret s\n\t}\n}\n"
	if got != want {
		t.Errorf("caddyfile:\n%s\nwant:\n%s", got, want)
	}
}

func TestCaddyfileLogOptions(t *testing.T) {
	got := caddyfile(1, map[string]string{"db_uri": "u"}, Options{LogFile: "/tmp/a b.log", LogLevel: "ERROR"})
	want := "{\n\tadmin off\n\tauto_https off\n\tpersist_config off\n" +
		"\tlog {\n\t\toutput file `/tmp/a b.log`\n\t\tlevel ERROR\n\t}\n}\n" +
		"http://127.0.0.1:1 {\n\tlog {\n\t\toutput file `/tmp/a b.log`\n\t}\n\tpgrest {\n\t\tdb_uri u\n\t}\n}\n"
	if got != want {
		t.Errorf("caddyfile:\n%s\nwant:\n%s", got, want)
	}
}

func TestCaddyfileAdminEndpoint(t *testing.T) {
	got := caddyfile(1, map[string]string{"db_uri": "u"}, Options{Admin: "127.0.0.1:2999"})
	want := "{\n\tadmin 127.0.0.1:2999\n\tauto_https off\n\tpersist_config off\n}\n" +
		"http://127.0.0.1:1 {\n\tpgrest {\n\t\tdb_uri u\n\t}\n}\n"
	if got != want {
		t.Errorf("caddyfile:\n%s\nwant:\n%s", got, want)
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:p@h/db":        "postgres://u:p@h/db",
		"host=h user=u":              "`host=h user=u`",
		`password="x"`:               "`password=\"x\"`",
		"/tmp/pgrest-client/c.log":   "/tmp/pgrest-client/c.log",
		"/tmp/with\ttab/caddy.log":   "`/tmp/with\ttab/caddy.log`",
		"postgres://h/db?sslmode=no": "postgres://h/db?sslmode=no",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %q, want %q", in, got, want)
		}
	}
}
