package caddymodule

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	// The adapt tests use Caddy's standard directives around pgrest.
	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

var update = flag.Bool("update", false, "rewrite the expected JSON of testdata/*.caddyfiletest")

// TestCaddyfileAdapt adapts each testdata/*.caddyfiletest, in Caddy's own
// format: a Caddyfile, a line of dashes, then the expected JSON, or, for a
// Caddyfile that must fail, text the error must contain.
func TestCaddyfileAdapt(t *testing.T) {
	files, err := filepath.Glob("testdata/*.caddyfiletest")
	if err != nil || len(files) == 0 {
		t.Fatalf("no adapt tests: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".caddyfiletest"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			caddyfileText, expected, ok := strings.Cut(string(data), "----------")
			if !ok {
				t.Fatalf("%s has no ---------- line", file)
			}
			caddyfileText = strings.TrimSpace(caddyfileText) + "\n"
			expected = strings.TrimSpace(expected)

			got, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfileText), nil)
			for _, w := range warnings {
				t.Logf("warning: %s:%d: %s: %s", file, w.Line, w.Directive, w.Message)
			}
			if !strings.HasPrefix(expected, "{") {
				if err == nil {
					t.Fatalf("adapting succeeded; want an error containing %q", expected)
				}
				if !strings.Contains(err.Error(), expected) {
					t.Fatalf("error %q does not contain %q", err, expected)
				}
				return
			}
			if err != nil {
				t.Fatalf("adapting: %v", err)
			}
			if *update {
				var pretty bytes.Buffer
				if err := json.Indent(&pretty, got, "", "\t"); err != nil {
					t.Fatal(err)
				}
				out := caddyfileText + "----------\n" + pretty.String() + "\n"
				if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !jsonEqual(t, got, []byte(expected)) {
				var pretty bytes.Buffer
				_ = json.Indent(&pretty, got, "", "\t")
				t.Errorf("adapted JSON differs from the expected; got\n%s", pretty.String())
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("adapted JSON: %v", err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("expected JSON: %v", err)
	}
	return reflect.DeepEqual(va, vb)
}

// TestCaddyfileExample proves the Caddyfile shipped at the repository root
// adapts, keeps its secrets out of the JSON, and loads.
func TestCaddyfileExample(t *testing.T) {
	const dbURI = "postgres://authenticator:db-password-in-env@127.0.0.1:1/app"
	const jwtSecret = "jwt-secret-in-env-0123456789abcdefghij"
	t.Setenv("PGREST_DB_URI", dbURI)
	t.Setenv("PGREST_JWT_SECRET", jwtSecret)
	isolateCaddy(t)

	src, err := os.ReadFile("../Caddyfile.example")
	if err != nil {
		t.Fatal(err)
	}
	adapted, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt(src, map[string]any{"filename": "Caddyfile.example"})
	if err != nil {
		t.Fatalf("adapting Caddyfile.example: %v", err)
	}
	for _, w := range warnings {
		t.Errorf("warning: %s:%d: %s: %s", w.File, w.Line, w.Directive, w.Message)
	}

	for _, secret := range []string{dbURI, jwtSecret, "db-password-in-env"} {
		if bytes.Contains(adapted, []byte(secret)) {
			t.Errorf("the adapted JSON holds the secret %q", secret)
		}
	}
	for _, placeholder := range []string{"{env.PGREST_DB_URI}", "{env.PGREST_JWT_SECRET}"} {
		if !bytes.Contains(adapted, []byte(placeholder)) {
			t.Errorf("the adapted JSON lacks the placeholder %s", placeholder)
		}
	}

	var cfg caddy.Config
	if err := json.Unmarshal(adapted, &cfg); err != nil {
		t.Fatal(err)
	}
	if err := caddy.Validate(&cfg); err != nil {
		t.Fatalf("the adapted Caddyfile.example does not load: %v", err)
	}
	if n := livePools(); n != 0 {
		t.Errorf("%d pools left open after validation", n)
	}
}

// isolateCaddy keeps Caddy's storage and autosaved config out of the home
// directory.
func isolateCaddy(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
}
