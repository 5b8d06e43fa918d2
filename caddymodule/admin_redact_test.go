package caddymodule

import (
	"strings"
	"testing"
)

func TestIsPlaceholder(t *testing.T) {
	for v, want := range map[string]bool{
		"{env.JWT_SECRET}":        true,
		"{file./run/secrets/jwt}": true,
		"{env.}":                  false,
		"{file.}":                 false,
		"{system.hostname}":       false,
		`{"kty":"oct"}`:           false,
		"{env.A}{env.B}":          false,
		"{env.A}secret}":          false,
		"secret{env.A}":           false,
		" {env.A}":                false,
		"{env.A":                  false,
		"@/run/secrets/jwt":       false,
		"":                        false,
	} {
		if got := isPlaceholder(v); got != want {
			t.Errorf("isPlaceholder(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestRedactConnString(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://auth:s3cret@db/app":                             "postgres://auth:REDACTED@db/app",
		"postgresql://auth@db/app?password=s3cret&sslmode=require":  "postgresql://auth@db/app?password=REDACTED&sslmode=require",
		"postgres://auth@db/app?sslpassword=s3cret":                 "postgres://auth@db/app?sslpassword=REDACTED",
		"postgres://auth:s3cret@db/app#s3cret":                      "postgres://auth:REDACTED@db/app",
		"postgres://auth:s3#cret@db/app":                            "REDACTED",
		"postgres://auth@db/app?password=%zzs3cret":                 "REDACTED",
		"host=db user=auth password=s3cret dbname=app":              "host=db user=auth password=REDACTED dbname=app",
		`host=db password=s3\ cret dbname=app`:                      "host=db password=REDACTED dbname=app",
		`host=db password = 's3 \' cret' dbname=app`:                "host=db password = REDACTED dbname=app",
		"host=db password='s3 cret":                                 "host=db password=REDACTED",
		"host=db sslpassword=s3cret":                                "host=db sslpassword=REDACTED",
		"host=db user=auth":                                         "host=db user=auth",
		"postgres://auth@db/app":                                    "postgres://auth@db/app",
		"postgres://auth:s3cret@db1:5432,db2:5433/app?sslmode=none": "postgres://auth:REDACTED@db1:5432,db2:5433/app?sslmode=none",
	} {
		got := redactConnString(in)
		if got != want {
			t.Errorf("redactConnString(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(got, "s3") {
			t.Errorf("redactConnString(%q) shows the password: %q", in, got)
		}
	}
}

func TestShownConnString(t *testing.T) {
	for _, tt := range []struct {
		in     string
		atFile bool
		want   string
	}{
		{"{env.DB_URI}", false, "{env.DB_URI}"},
		{"@/run/secrets/db_uri", true, "@/run/secrets/db_uri"},
		// A setting that reads no file takes @... as the connection string.
		{"@x password=s3cret", false, "@x password=REDACTED"},
		{"postgres://auth:{env.PW}@db/app", false, "REDACTED"},
		{"", false, ""},
	} {
		p := param{secret: secretConnString, atFile: tt.atFile}
		if got := p.shown(tt.in); got != tt.want {
			t.Errorf("a connection string %q (atFile %v) is shown %q, want %q", tt.in, tt.atFile, got, tt.want)
		}
	}
}
