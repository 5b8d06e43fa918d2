package schemasource

import (
	"strconv"

	"go.uber.org/zap"
)

// sessionQuery reads the session user and the settings that decide
// whether PostgreSQL writes the values of a statement's parameters to its
// log, as they apply to the authenticator's sessions (a role's or a
// database's ALTER … SET included), by name.
const sessionQuery = `select session_user::text, coalesce((select pg_catalog.json_object_agg(name, setting)
  from pg_catalog.pg_settings
  where name in ('log_statement', 'log_min_duration_statement', 'log_min_duration_sample',
                 'log_transaction_sample_rate', 'log_parameter_max_length')), '{}')`

// warnOfLoggedParameters warns, once per source, when settings make
// PostgreSQL log the parameters of pgrest's statements. They carry each
// request's token claims, headers, cookies and app_settings values (an
// application's own signing key often among them), so statement logging
// copies them into the server's log, where whoever reads it can use them.
// log_parameter_max_length = 0 for the authenticator keeps the statements
// logged and their values out.
func (s *Source) warnOfLoggedParameters(settings map[string]string) {
	if !parametersLogged(settings) || s.warnedOfLoggedParameters.Swap(true) {
		return
	}
	s.logger.Warn("PostgreSQL logs the values of pgrest's statement parameters: "+
		"tokens' claims, request headers and cookies, and app_settings values reach the server's log; "+
		"ALTER ROLE <authenticator> SET log_parameter_max_length = 0 keeps them out",
		zap.String("log_statement", settings["log_statement"]),
		zap.String("log_min_duration_statement", settings["log_min_duration_statement"]),
		zap.String("log_min_duration_sample", settings["log_min_duration_sample"]),
		zap.String("log_transaction_sample_rate", settings["log_transaction_sample_rate"]),
		zap.String("log_parameter_max_length", settings["log_parameter_max_length"]))
}

// parametersLogged says whether settings (pg_settings' values) make
// PostgreSQL log the bind parameters of an ordinary statement: some
// statement logging is on, and log_parameter_max_length is not 0. A
// setting the role may not read counts as off.
func parametersLogged(settings map[string]string) bool {
	if settings["log_parameter_max_length"] == "0" {
		return false
	}
	// A value that does not parse (unreadable) counts as off.
	number := func(name string) float64 {
		v, err := strconv.ParseFloat(settings[name], 64)
		if err != nil {
			return -1
		}
		return v
	}
	return settings["log_statement"] == "all" ||
		number("log_min_duration_statement") >= 0 ||
		number("log_min_duration_sample") >= 0 ||
		number("log_transaction_sample_rate") > 0
}
