package apirequest

import (
	"slices"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// CheckPlanAnalyze refuses a plan asking for options=analyze when role is
// not among analyzeRoles (db_plan_analyze_roles), with 403 PGRST192.
// EXPLAIN ANALYZE runs the statement and reports what it met, the rows
// row-level security removed among them ("Rows Removed by Filter"), so a
// role that may analyze can count rows it may not read: only the roles
// the administrator lists may. Names are compared exactly, as SET ROLE
// takes them; membership in a listed role does not count.
func CheckPlanAnalyze(p Plan, role string, analyzeRoles []string) *apierr.Error {
	if !slices.Contains(p.Options, PlanAnalyze) || slices.Contains(analyzeRoles, role) {
		return nil
	}
	return apierr.PlanAnalyzeNotAllowed(role)
}
