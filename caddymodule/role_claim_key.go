package caddymodule

import (
	"go.uber.org/zap"

	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// roleClaimKeyMigration is where PostgREST's deprecation warning sends
// the reader.
const roleClaimKeyMigration = "https://github.com/PostgREST/postgrest/blob/main/CHANGELOG.md#migration-to-v16"

// warnOfDeprecatedRoleClaimKey logs a jwt_role_claim_key in PostgREST 14's
// syntax at warn level, in PostgREST v16.2's words (with pgrest's name of
// the setting), whenever a configuration is built: at start and at every
// reload, from the Caddyfile or the database.
func (l *liveConfig) warnOfDeprecatedRoleClaimKey(v *jwtauth.Verifier) {
	key, deprecated := v.DeprecatedRoleClaimKey()
	if !deprecated {
		return
	}
	setting := "`jwt_role_claim_key=" + key + "`"
	l.logger.Warn("The config "+setting+" is using the deprecated JSPath syntax.",
		zap.String("hint", "Update "+setting+" to the new JSONPath syntax as support for JSPath will be removed "+
			"in a future release. See the migration guide on how to update: "+roleClaimKeyMigration))
}
