package rpc

import "testing"

// TestRollbackRaisesDeferredConstraints mirrors PostgREST's RollbackSpec,
// "raises immediate constraints" and "raises deferred constraints", under
// each of its three configurations and each Prefer: tx: a constraint a
// function broke is 409 23505 whether it was checked at once or deferred
// to the end of the transaction, and whether that end is a commit or a
// rollback. A rollback checks the deferred constraints first (SET
// CONSTRAINTS ALL IMMEDIATE), so the client learns of the violation as it
// would at commit. The answer is an error, so no preference is echoed,
// and nothing is written.
func TestRollbackRaisesDeferredConstraints(t *testing.T) {
	duplicate := errorJSON("23505", `duplicate key value violates unique constraint "deferrable_unique_constraint_col_key"`,
		"Key (col)=(1) already exists.", nil)
	configs := []struct{ name, txEnd, line string }{
		{"tx-allow-override = true (rollback-allow-override, PostgREST's default in its spec)", "rollback-allow-override", "db_prepared_statements true"},
		{"tx-rollback-all = false, tx-allow-override = false (commit)", "commit", "db_prepared_statements true"},
		{"tx-rollback-all = true, tx-allow-override = false (rollback)", "rollback", "db_prepared_statements true"},
		{"tx-rollback-all = true without prepared statements", "rollback", "db_prepared_statements false"},
		{"commit-allow-override", "commit-allow-override", "db_prepared_statements true"},
	}
	prefers := []struct{ name, value string }{{"without Prefer tx", ""}, {"Prefer tx=commit", "tx=commit"}, {"Prefer tx=rollback", "tx=rollback"}}
	cases := []struct{ name, body string }{{"raises immediate constraints", ""}, {"raises deferred constraints", `{"deferred": true}`}}
	for _, cfg := range configs {
		t.Run(cfg.name, func(t *testing.T) {
			s := startServer(t, "db_tx_end "+cfg.txEnd, cfg.line)
			for _, p := range prefers {
				var headers []string
				if p.value != "" {
					headers = []string{"Prefer", p.value}
				}
				for _, c := range cases {
					t.Run(p.name+" "+c.name, func(t *testing.T) {
						s.Do(t, "POST", "/rpc/raise_constraint", c.body, headers...).
							Expect(t, 409, duplicate, map[string]string{"Preference-Applied": ""})
						if n := sqlInt(t, "select count(*) from api.deferrable_unique_constraint"); n != 0 {
							t.Errorf("%d rows written, want none", n)
						}
					})
				}
			}
			t.Run("the connection serves the next request after a deferred violation", func(t *testing.T) {
				s.Do(t, "POST", "/rpc/raise_constraint", `{"deferred": true}`, rollbackPrefer(cfg.txEnd)...).
					Expect(t, 409, duplicate, nil)
				s.Do(t, "POST", "/rpc/echo", `{"t": "still here"}`).Expect(t, 200, `"still here"`, nil)
			})
		})
	}
}

// rollbackPrefer is a Prefer that ends the transaction in rollback where txEnd
// lets a request choose.
func rollbackPrefer(txEnd string) []string {
	if txEnd == "commit-allow-override" {
		return []string{"Prefer", "tx=rollback"}
	}
	return nil
}
