package executor

import (
	"slices"

	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// DefaultHoistedTxSettings are the function settings set for the whole
// transaction of a call when db_hoisted_tx_settings is not given, as in
// PostgREST: those that must be in force before the statement calling
// the function starts to matter at all.
var DefaultHoistedTxSettings = []string{"statement_timeout", "plan_filter.statement_cost_limit", "default_transaction_isolation"}

// hoisted keeps the settings of a function's SET clauses that
// db_hoisted_tx_settings names. The others still apply, by PostgreSQL,
// inside the function only.
func (e *Executor) hoisted(settings []schemacache.Setting) []schemacache.Setting {
	if len(settings) == 0 {
		return nil
	}
	allowed := e.cfg.HoistedTxSettings
	if allowed == nil {
		allowed = DefaultHoistedTxSettings
	}
	var out []schemacache.Setting
	for _, s := range settings {
		if slices.Contains(allowed, s.Name) {
			out = append(out, s)
		}
	}
	return out
}
