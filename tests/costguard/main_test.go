// Package costguard tests the query cost guard (db_max_cost, a role's
// pgrst.db_max_cost) against a real PostgreSQL and a real Caddy: what is
// over the limit is refused with 400 PGRST195 before it runs, which
// pg_stat_statements confirms.
package costguard

import (
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// superDSN connects as a superuser, authDSN as the authenticator.
var superDSN, authDSN string

const jwtSecret = "pgrest-costguard-secret-that-is-long-enough-0123456789"

// TestMain loads testdata/costguard.sql into a fresh database of a
// throwaway cluster and runs the tests.
func TestMain(m *testing.M) {
	db := pgresttest.MustSetUp("pgrest_costguard", pgresttest.Files("testdata/costguard.sql"))
	superDSN, authDSN = db.SuperDSN, db.AuthenticatorDSN()
	db.Run(m)
}

// directives serve schema api, with anonymous requests as web_anon.
func directives(lines ...string) map[string]string {
	return pgresttest.Directives(map[string]string{
		"db_uri":          authDSN,
		"db_schemas":      "api",
		"db_anon_role":    "web_anon",
		"jwt_secret":      jwtSecret,
		"db_plan_enabled": "true",
	}, lines...)
}
