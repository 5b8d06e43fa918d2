package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// TestRestrictedDBSchemas mirrors PostgREST v16's test_restricted_db_schemas:
// db_schemas naming pg_catalog or information_schema, alone or beside
// another schema, stops pgrest at start with an error naming db_schemas.
// From the database (pgrst.db_schemas) the same configuration is refused
// as any that is not valid: the one in force stays.
func TestRestrictedDBSchemas(t *testing.T) {
	for _, restricted := range []string{"pg_catalog", "information_schema"} {
		want := "db_schemas does not allow schema: '" + restricted + "'"
		for _, value := range []string{restricted, "api " + restricted, pgresttest.Quote("api, " + restricted)} {
			t.Run("db_schemas "+value+" is refused at start", func(t *testing.T) {
				_, _, err := pgresttest.Serve(pgresttest.Directives(defaultDirectives(), "db_schemas "+value), pgresttest.Options{})
				if err == nil {
					_ = pgresttest.Stop()
					t.Fatal("the configuration was loaded")
				}
				if !strings.Contains(err.Error(), want) {
					t.Fatalf("the error does not say %q:\n%v", want, err)
				}
			})
		}
	}
	t.Run("pgrst.db_schemas naming pg_catalog leaves the configuration in force", func(t *testing.T) {
		t.Cleanup(func() { resetAuthenticatorSettings(t) })
		logFile := filepath.Join(t.TempDir(), "caddy.log")
		s := startServerLogging(t, logFile)
		waitForListener(t)
		sql(t, `alter role authenticator set pgrst.db_schemas = 'api, pg_catalog'; notify pgrst, 'reload config'`)
		eventually(t, "logging the refused configuration", func() bool {
			b, err := os.ReadFile(logFile)
			return err == nil && strings.Contains(string(b), "db_schemas does not allow schema: 'pg_catalog'")
		})
		s.get(t, "/hdr_projects?id=eq.1").Expect(t, http.StatusOK, `[{"id":1,"name":"Windows 7"}]`, nil)
		s.get(t, "/pg_class", "Accept-Profile", "pg_catalog").expectError(t, http.StatusNotAcceptable, "PGRST106")
	})
}
