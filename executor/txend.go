package executor

import "github.com/pgrest/caddy-pgrest/executor/apirequest"

// txOutcome decides commit or rollback from db_tx_end and, where the
// configuration allows an override, Prefer: tx=. applied is the
// preference to echo in Preference-Applied ("" when none was applied).
func (e *Executor) txOutcome(p apirequest.Preferences) (commit bool, applied string) {
	switch e.cfg.TxEnd {
	case TxRollback:
		return false, ""
	case TxCommitAllowOverride, TxRollbackAllowOverride:
		if p.Tx != "" {
			return p.Tx == "commit", "tx=" + p.Tx
		}
		return e.cfg.TxEnd == TxCommitAllowOverride, ""
	default:
		return true, ""
	}
}
