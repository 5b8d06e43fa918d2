package executor

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
)

// The query cost guard (db_max_cost, a role's pgrst.db_max_cost).
//
// A guarded request's transaction runs in two round trips instead of one:
// BEGIN, the settings, the pre-request and any extras, then
// EXPLAIN (FORMAT JSON) of the main statement with the same parameters;
// pgrest reads the top plan's "Total Cost" and either ends the transaction
// there (ROLLBACK, with the 400 PGRST195) or sends the main statement and
// the end, in the same transaction: same role, same settings, and what
// the pre-request did still in place. The main statement never executes
// when refused, so a function with side effects or a write leaves nothing
// behind. This is what the pg_plan_filter extension does in the planner,
// without an extension, which managed databases seldom allow.
//
// Why EXPLAIN in the transaction and not a plan request of its own: the
// estimate must be of the statement as it will run, under the role's
// row-level security and with the pre-request's settings.
//
// Roles without a limit take the one-round-trip path unchanged: the only
// work added is costLimit, a map lookup when some role has a limit.

// costLimit is role's query cost limit (at most MaxCostLimit, checked
// where it is read): its own pgrst.db_max_cost when it
// has one, else db_max_cost; 0 for none.
func (e *Executor) costLimit(cache *schemacache.Cache, role string) uint32 {
	if cache.HasRoleMaxCosts() {
		if n, ok := cache.RoleMaxCost(role); ok {
			return uint32(n)
		}
	}
	return uint32(e.cfg.MaxCost)
}

// costExplain is the EXPLAIN the guard runs: JSON, whose top plan's
// "Total Cost" is read without parsing text, and no options (ANALYZE
// would run the statement).
var costExplain = apirequest.Plan{Format: apirequest.PlanJSON}

// costChecked runs the first part of a guarded transaction on pg: BEGIN,
// the statements before the main one and the main one's EXPLAIN. It
// returns the results of the statements before the main one and the rest
// of the transaction to run, which continues it; or, when the cost is
// over the limit or anything failed, the error, the transaction ended and
// the session reset.
func (e *Executor) costChecked(ctx context.Context, pg *pgconn.PgConn, spec *txSpec) ([]*txResult, *txSpec, error) {
	n := len(spec.statements)
	probe := &txSpec{role: spec.role, readOnly: spec.readOnly,
		statements: append(spec.statements[:n-1:n-1], sqlgen.Explain(spec.statements[n-1], costExplain))}
	res, err := e.pipeline(ctx, pg, probe)
	if err != nil {
		return nil, nil, e.settle(ctx, pg, err)
	}
	cost, err := planCost(res[n-1])
	if err == nil && cost > float64(spec.costLimit) {
		err = apierr.QueryCostExceeded(cost, int64(spec.costLimit))
	}
	if err != nil {
		// The transaction is open: cleanUpAfterFailure rolls it back and
		// resets the session, as after any failed request.
		cleanUpAfterFailure(ctx, pg)
		return nil, nil, err
	}
	rest := *spec
	rest.statements = spec.statements[n-1:]
	rest.continued = true
	return res[:n-1], &rest, nil
}

// planCost is the top plan's "Total Cost" of EXPLAIN (FORMAT JSON)'s one
// row: [{"Plan": {"Total Cost": 12.5, ...}}].
func planCost(res *txResult) (float64, error) {
	if len(res.rows) != 1 || len(res.rows[0]) != 1 {
		return 0, errors.New("cost guard: EXPLAIN returned no plan")
	}
	var plans []struct {
		Plan struct {
			TotalCost *float64 `json:"Total Cost"`
		}
	}
	if err := json.Unmarshal(res.rows[0][0], &plans); err != nil {
		return 0, err
	}
	if len(plans) != 1 || plans[0].Plan.TotalCost == nil {
		return 0, errors.New("cost guard: EXPLAIN's plan has no Total Cost")
	}
	return *plans[0].Plan.TotalCost, nil
}

// withBefore puts the results of the statements before the main one,
// read by costChecked, in front of the rest's, so that a guarded
// transaction's results are in the same order as an unguarded one's.
func withBefore(before, rest []*txResult) []*txResult {
	if before == nil || rest == nil {
		return rest
	}
	return append(before[:len(before):len(before)], rest...)
}
