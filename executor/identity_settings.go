package executor

import (
	"bytes"
	"encoding/json"

	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// identitySettingsSQL switches a transaction to a role and its claims,
// as the settings statement does for a request, with nothing of an HTTP
// request: work that runs as a user outside one (the realtime change
// feed checking that a subscriber may see a row) sets only who it is,
// as Supabase Realtime does (role and request.jwt.claims).
const (
	identitySettingsSQL       = `select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)`
	legacyIdentitySettingsSQL = `select set_config('role', $1, true)`
)

// legacyIdentityTexts are the legacy statements for 0 to maxSettingArgs
// claims, then the one reading them from a JSON object, as for requests.
var legacyIdentityTexts = settingsStatementTexts(sqltext.Const(legacyIdentitySettingsSQL), 1)

// IdentitySettings is the statement that makes the rest of a transaction
// run as role with claims (the JSON object request.jwt.claims holds).
// With legacy (PostgreSQL before 14, or db_legacy_claims) each claim is
// its own request.jwt.claim.<name> setting instead, rendered as the
// executor renders them for requests. The statement text depends only on
// how many claims there are, so a prepared-statement cache keeps few.
func IdentitySettings(role string, claims []byte, legacy bool) (sqlgen.Statement, error) {
	if !legacy {
		return sqlgen.Statement{SQL: sqltext.Const(identitySettingsSQL), Args: [][]byte{[]byte(role), claims}}, nil
	}
	var decoded map[string]any
	if len(claims) > 0 {
		dec := json.NewDecoder(bytes.NewReader(claims))
		dec.UseNumber()
		if err := dec.Decode(&decoded); err != nil {
			return sqlgen.Statement{}, err
		}
	}
	variable := variableSettings(nil, nil, legacyClaims(jwtauth.Identity{Role: role, Claims: decoded}))
	args := [][]byte{[]byte(role)}
	if len(variable) > maxSettingArgs {
		return sqlgen.Statement{SQL: legacyIdentityTexts[maxSettingArgs+1], Args: append(args, settingsJSON(variable))}, nil
	}
	for _, s := range variable {
		args = append(args, []byte(s.Name), []byte(s.Value))
	}
	return sqlgen.Statement{SQL: legacyIdentityTexts[len(variable)], Args: args}, nil
}
