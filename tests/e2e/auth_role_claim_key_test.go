package e2e

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// The role claim key as PostgREST v16.2 reads it, through its test/io
// cases (test_config.py, with the fixtures roleclaims,
// deprecatedroleclaims, jwtaudroleclaims and deprecatedjwtaudroleclaims):
// an RFC 9535 JSONPath query, or the deprecated syntax of PostgREST 14,
// which is logged as deprecated at start and at every reload. auth_alice
// stands for PostgREST's postgrest_test_author; a role that is not found
// makes the request anonymous.

// roleClaimCase is one of those fixtures: the key, the claims, and the
// role the request runs as ("" for a 401 before it runs).
type roleClaimCase struct {
	key    string
	claims jwt.MapClaims
	role   string
}

// runRoleClaimCases starts a server per case, with lines besides the key,
// and checks whom a request with the claims runs as.
func runRoleClaimCases(t *testing.T, cases []roleClaimCase, lines ...string) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			s := startServer(t, append([]string{"jwt_role_claim_key " + pgresttest.Quote(c.key)}, lines...)...)
			res := s.get(t, "/rpc/auth_whoami", bearer(token(t, c.claims))...)
			if c.role == "" {
				res.expectError(t, http.StatusUnauthorized, "PGRST303")
				return
			}
			res.Expect(t, http.StatusOK, `"`+c.role+`"`, nil)
		})
	}
}

func TestRoleClaimKey(t *testing.T) {
	realm := jwt.MapClaims{"realm_access": map[string]any{"roles": []any{"other", "auth_alice"}}}
	runRoleClaimCases(t, []roleClaimCase{
		{"$.postgrest.a_role", jwt.MapClaims{"postgrest": map[string]any{"a_role": "auth_alice"}, "other": "claims"}, "auth_alice"},
		{"$.customObject.manyRoles[1]", jwt.MapClaims{"customObject": map[string]any{"manyRoles": []any{"other", "auth_alice"}}, "other": map[string]any{}}, "auth_alice"},
		{`$["https://www.example.com/roles"][0].value`, jwt.MapClaims{"https://www.example.com/roles": []any{map[string]any{"value": "auth_alice"}}, "other": 666}, "auth_alice"},
		{"$.myDomain[3]", jwt.MapClaims{"myDomain": []any{"other", "auth_alice"}, "other": 1.23}, "web_anon"},
		{"$.myRole", jwt.MapClaims{"role": "auth_alice", "other": true}, "web_anon"},
		{`$.realm_access.roles[?(@ == "auth_alice")]`, realm, "auth_alice"},
		{`$.realm_access.roles[?(@ != "other")]`, realm, "auth_alice"},
		// PostgREST's documented examples; of several values, the first.
		{"$.realm_access.roles[?(@ == 'auth_alice')]", realm, "auth_alice"},
		{"$.realm_access.roles[?search(@, '^auth_')]", realm, "auth_alice"},
		{"$.realm_access.roles[*]", jwt.MapClaims{"realm_access": map[string]any{"roles": []any{"auth_bob", "auth_alice"}}}, "auth_bob"},
	})
}

func TestDeprecatedRoleClaimKey(t *testing.T) {
	realm := jwt.MapClaims{"realm_access": map[string]any{"roles": []any{"other", "auth_alice"}}}
	runRoleClaimCases(t, []roleClaimCase{
		{".postgrest.a_role", jwt.MapClaims{"postgrest": map[string]any{"a_role": "auth_alice"}, "other": "claims"}, "auth_alice"},
		{".customObject.manyRoles[1]", jwt.MapClaims{"customObject": map[string]any{"manyRoles": []any{"other", "auth_alice"}}, "other": map[string]any{}}, "auth_alice"},
		{`."https://www.example.com/roles"[0].value`, jwt.MapClaims{"https://www.example.com/roles": []any{map[string]any{"value": "auth_alice"}}, "other": 666}, "auth_alice"},
		{".myDomain[3]", jwt.MapClaims{"myDomain": []any{"other", "auth_alice"}, "other": 1.23}, "web_anon"},
		{".myRole", jwt.MapClaims{"role": "auth_alice", "other": true}, "web_anon"},
		{`.realm_access.roles[?(@ == "auth_alice")]`, realm, "auth_alice"},
		{`.realm_access.roles[?(@ != "other")]`, realm, "auth_alice"},
		{`.realm_access.roles[?(@ ^== "auth_al")]`, realm, "auth_alice"},
		{`.realm_access.roles[?(@ ==^ "h_alice")]`, realm, "auth_alice"},
		{`.realm_access.roles[?(@ *== "_ali")]`, realm, "auth_alice"},
		{`.realm_access.roles[?(@ == "string")]`, jwt.MapClaims{"realm_access": map[string]any{"roles": []any{map[string]any{"obj_key": "obj_value"}}}}, "web_anon"},
	})
}

func TestJWTAudInRoleClaimKey(t *testing.T) {
	runRoleClaimCases(t, []roleClaimCase{
		{"$.aud", jwt.MapClaims{"aud": "auth_alice"}, "auth_alice"},
		{"$.aud", jwt.MapClaims{"aud": "auth_invalid"}, ""},
		{"$.aud[0]", jwt.MapClaims{"aud": []any{"auth_alice"}}, "auth_alice"},
	}, "jwt_aud auth_alice")
	t.Run("$.aud[1] passes the aud check and names a role the database does not know", func(t *testing.T) {
		s := startServer(t, "jwt_aud auth_alice", "jwt_role_claim_key $.aud[1]")
		s.get(t, "/rpc/auth_whoami", bearer(token(t, jwt.MapClaims{"aud": []any{"auth_alice", "auth_invalid"}}))...).
			expectError(t, http.StatusUnauthorized, "22023")
	})
}

func TestJWTAudInDeprecatedRoleClaimKey(t *testing.T) {
	runRoleClaimCases(t, []roleClaimCase{
		{".aud", jwt.MapClaims{"aud": "auth_alice"}, "auth_alice"},
		{".aud", jwt.MapClaims{"aud": "auth_invalid"}, ""},
		{".aud[0]", jwt.MapClaims{"aud": []any{"auth_alice"}}, "auth_alice"},
	}, "jwt_aud auth_alice")
}

// TestDeprecatedRoleClaimKeyWarning mirrors test_deprecated_role_claim_key_warning:
// the deprecated syntax is logged at start, in PostgREST's words with
// pgrest's name of the setting, and again when a reload from the database
// brings another deprecated key; the JSONPath syntax is not.
func TestDeprecatedRoleClaimKeyWarning(t *testing.T) {
	const hint = " to the new JSONPath syntax as support for JSPath will be removed in a future release. " +
		"See the migration guide on how to update: https://github.com/PostgREST/postgrest/blob/main/CHANGELOG.md#migration-to-v16"
	warnings := func(t *testing.T, logFile string) map[string]string {
		t.Helper()
		out := map[string]string{}
		f, err := os.Open(logFile)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var line struct{ Level, Msg, Hint string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Level == "warn" {
				out[line.Msg] = line.Hint
			}
		}
		return out
	}
	expectWarning := func(t *testing.T, logFile, key string) {
		t.Helper()
		msg := "The config `jwt_role_claim_key=" + key + "` is using the deprecated JSPath syntax."
		eventually(t, "the warning "+msg, func() bool { _, ok := warnings(t, logFile)[msg]; return ok })
		if got, want := warnings(t, logFile)[msg], "Update `jwt_role_claim_key="+key+"`"+hint; got != want {
			t.Errorf("hint %q, want %q", got, want)
		}
	}
	t.Run("the new syntax is not warned of", func(t *testing.T) {
		logFile := filepath.Join(t.TempDir(), "caddy.log")
		s := startServerLogging(t, logFile, "jwt_role_claim_key $.roles.user_role")
		s.get(t, "/rpc/auth_whoami").ExpectStatus(t, http.StatusOK)
		for msg := range warnings(t, logFile) {
			if strings.HasPrefix(msg, "The config ") {
				t.Errorf("warned: %s", msg)
			}
		}
	})
	t.Run("the deprecated syntax is warned of at start and at each reload that brings it", func(t *testing.T) {
		t.Cleanup(func() { resetAuthenticatorSettings(t) })
		logFile := filepath.Join(t.TempDir(), "caddy.log")
		s := startServerLogging(t, logFile, "jwt_role_claim_key .roles.user_role")
		expectWarning(t, logFile, `."roles"."user_role"`)
		waitForListener(t)
		sql(t, `alter role authenticator set pgrst.jwt_role_claim_key = '.again.deprecated.syntax'; notify pgrst, 'reload config'`)
		expectWarning(t, logFile, `."again"."deprecated"."syntax"`)
		claims := jwt.MapClaims{"again": map[string]any{"deprecated": map[string]any{"syntax": "auth_bob"}}}
		s.get(t, "/rpc/auth_whoami", bearer(token(t, claims))...).Expect(t, http.StatusOK, `"auth_bob"`, nil)
	})
}
