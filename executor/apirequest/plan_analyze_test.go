package apirequest

import "testing"

func TestCheckPlanAnalyze(t *testing.T) {
	plain := Plan{Format: PlanJSON, For: "application/json"}
	verbose := Plan{Format: PlanJSON, For: "application/json", Options: []PlanOption{PlanVerbose, PlanBuffers}}
	analyze := Plan{Format: PlanJSON, For: "application/json", Options: []PlanOption{PlanAnalyze}}
	analyzeWAL := Plan{Format: PlanText, For: "text/csv", Options: []PlanOption{PlanAnalyze, PlanBuffers, PlanWAL}}
	for _, tt := range []struct {
		name    string
		plan    Plan
		role    string
		roles   []string
		refused bool
	}{
		{"a plain plan needs no listing", plain, "web_anon", nil, false},
		{"options other than analyze need no listing", verbose, "web_anon", nil, false},
		{"analyze with no role listed is refused", analyze, "web_anon", nil, true},
		{"analyze with other roles listed is refused", analyzeWAL, "web_anon", []string{"admin", "webuser"}, true},
		{"analyze by a listed role is allowed", analyzeWAL, "webuser", []string{"admin", "webuser"}, false},
		{"names are compared exactly", analyze, "WebUser", []string{"webuser"}, true},
		{"a longer name is not its prefix", analyze, "webuser2", []string{"webuser"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPlanAnalyze(tt.plan, tt.role, tt.roles)
			if (err != nil) != tt.refused {
				t.Fatalf("CheckPlanAnalyze = %v, refused want %v", err, tt.refused)
			}
			if err != nil && (err.Status != 403 || err.Code != "PGRST192" || err.Details != `The role "`+tt.role+`" is not in db_plan_analyze_roles.`) {
				t.Errorf("error %+v", err)
			}
		})
	}
}
