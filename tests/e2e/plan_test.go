package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// Execution plans: Accept: application/vnd.pgrst.plan answered with the
// EXPLAIN of the request's statement when db_plan_enabled is on, as
// PostgREST v16 answers it (its PlanSpec). options=analyze needs the role
// in db_plan_analyze_roles (tests/security has the refusals).

const planAccept = "Accept"

// planJSON decodes an EXPLAIN (FORMAT JSON) body: one plan in an array.
func planJSON(t *testing.T, res *response) map[string]any {
	t.Helper()
	var plans []map[string]any
	if err := json.Unmarshal(res.Body, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("body is not one JSON plan (%v): %s", err, res.Body)
	}
	return plans[0]
}

// planNode is the top plan node of a JSON plan.
func planNode(t *testing.T, res *response) map[string]any {
	t.Helper()
	node, ok := planJSON(t, res)["Plan"].(map[string]any)
	if !ok {
		t.Fatalf("no Plan node in %s", res.Body)
	}
	return node
}

// planExpect checks a plan response's status and Content-Type.
func planExpect(t *testing.T, res *response, contentType string) {
	t.Helper()
	if res.Status != 200 {
		t.Fatalf("status %d, want 200; body %s", res.Status, res.Body)
	}
	if got := res.Header.Get("Content-Type"); got != contentType {
		t.Errorf("Content-Type %q, want %q", got, contentType)
	}
}

// planProjectNames are the names in api.plan_projects, by id.
func planProjectNames(t *testing.T, s *server) string {
	t.Helper()
	res := s.get(t, "/plan_projects?select=id,name&order=id")
	if res.Status != 200 {
		t.Fatalf("reading plan_projects: status %d; body %s", res.Status, res.Body)
	}
	return string(res.Body)
}

func TestPlanIsRefusedWhenDisabled(t *testing.T) {
	s := startServer(t)
	for _, tc := range []struct{ method, path, accept, name string }{
		{"GET", "/plan_projects?id=in.(1,2,3)", "application/vnd.pgrst.plan", `application/vnd.pgrst.plan+text; for="application/json"`},
		{"GET", "/rpc/plan_projects_below?bound=3", "application/vnd.pgrst.plan", `application/vnd.pgrst.plan+text; for="application/json"`},
		{"DELETE", "/plan_projects?id=in.(1,2,3)", "application/vnd.pgrst.plan", `application/vnd.pgrst.plan+text; for="application/json"`},
		{"GET", "/plan_projects", `application/vnd.pgrst.plan+json; for="text/csv"; options=analyze|verbose`,
			`application/vnd.pgrst.plan+json; for="text/csv"; options=analyze|verbose`},
	} {
		t.Run(tc.method+" "+tc.path+" with "+tc.accept+" is 406 PGRST107", func(t *testing.T) {
			res := s.do(t, tc.method, tc.path, "", planAccept, tc.accept)
			e := res.expectError(t, 406, "PGRST107")
			if want := "None of these media types are available: " + tc.name; e["message"] != want {
				t.Errorf("message %q, want %q", e["message"], want)
			}
		})
	}
	t.Run("the rows of the DELETE are still there", func(t *testing.T) {
		if got := planProjectNames(t, s); !strings.Contains(got, "Windows 7") {
			t.Errorf("rows %s", got)
		}
	})
	t.Run("a plan range is passed over for the next acceptable one", func(t *testing.T) {
		res := s.get(t, "/plan_projects?id=eq.1", planAccept, "application/vnd.pgrst.plan+json, application/json;q=0.5")
		if res.Status != 200 || res.Header.Get("Content-Type") != "application/json; charset=utf-8" {
			t.Fatalf("status %d, Content-Type %q; body %s", res.Status, res.Header.Get("Content-Type"), res.Body)
		}
		if string(res.Body) != `[{"id":1,"name":"Windows 7"}]` {
			t.Errorf("body %s", res.Body)
		}
	})
}

func TestPlanOfReads(t *testing.T) {
	s := startServer(t, "db_plan_enabled true", "db_plan_analyze_roles web_anon")
	const jsonPlan = `application/vnd.pgrst.plan+json; for="application/json"; charset=utf-8`

	t.Run("a JSON plan of a filtered read has a cost", func(t *testing.T) {
		res := s.get(t, "/plan_projects?id=in.(1,2,3)", planAccept, "application/vnd.pgrst.plan+json")
		planExpect(t, res, jsonPlan)
		node := planNode(t, res)
		if node["Node Type"] != "Aggregate" {
			t.Errorf("top node %v, want Aggregate", node["Node Type"])
		}
		if cost, ok := node["Total Cost"].(float64); !ok || cost <= 0 {
			t.Errorf("Total Cost %v, want a positive number", node["Total Cost"])
		}
		if _, analyzed := node["Actual Rows"]; analyzed {
			t.Errorf("the plan was analyzed without options=analyze")
		}
	})
	t.Run("the plan is text by default", func(t *testing.T) {
		for _, accept := range []string{"application/vnd.pgrst.plan", "application/vnd.pgrst.plan+text"} {
			res := s.get(t, "/plan_projects?id=in.(1,2,3)", planAccept, accept)
			planExpect(t, res, `application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8`)
			if !strings.HasPrefix(string(res.Body), "Aggregate") || !strings.Contains(string(res.Body), "\n") {
				t.Errorf("text plan %q, want lines starting with Aggregate", res.Body)
			}
		}
	})
	t.Run("analyze runs the statement", func(t *testing.T) {
		res := s.get(t, "/plan_projects?id=in.(1,2,3)", planAccept, "application/vnd.pgrst.plan+json; options=analyze")
		planExpect(t, res, `application/vnd.pgrst.plan+json; for="application/json"; options=analyze; charset=utf-8`)
		if rows := planNode(t, res)["Actual Rows"]; rows != float64(1) {
			t.Errorf("Actual Rows %v, want 1 (the aggregate)", rows)
		}
	})
	t.Run("verbose lists the output columns", func(t *testing.T) {
		res := s.get(t, "/plan_projects", planAccept, `application/vnd.pgrst.plan+json; for="application/json"; options=verbose`)
		planExpect(t, res, `application/vnd.pgrst.plan+json; for="application/json"; options=verbose; charset=utf-8`)
		if _, ok := planNode(t, res)["Output"].([]any); !ok {
			t.Errorf("no Output in %s", res.Body)
		}
	})
	t.Run("settings shows the request's search_path", func(t *testing.T) {
		res := s.get(t, "/plan_projects", planAccept, "application/vnd.pgrst.plan+json; options=settings")
		planExpect(t, res, `application/vnd.pgrst.plan+json; for="application/json"; options=settings; charset=utf-8`)
		settings, _ := planJSON(t, res)["Settings"].(map[string]any)
		if sp, _ := settings["search_path"].(string); !strings.Contains(sp, "api") {
			t.Errorf("Settings %v, want the search_path of schema api", planJSON(t, res)["Settings"])
		}
	})
	t.Run("buffers and wal with analyze, options in PostgREST's order", func(t *testing.T) {
		res := s.get(t, "/plan_projects", planAccept, "application/vnd.pgrst.plan+json; options=wal|buffers|analyze")
		planExpect(t, res, `application/vnd.pgrst.plan+json; for="application/json"; options=analyze|buffers|wal; charset=utf-8`)
		node := planNode(t, res)
		for _, k := range []string{"Shared Hit Blocks", "WAL Records"} {
			if _, ok := node[k]; !ok {
				t.Errorf("no %q in %s", k, res.Body)
			}
		}
	})
	t.Run("the plan for a single object", func(t *testing.T) {
		res := s.get(t, "/plan_projects?id=eq.1", planAccept, `application/vnd.pgrst.plan+json; for="application/vnd.pgrst.object"`)
		planExpect(t, res, `application/vnd.pgrst.plan+json; for="application/vnd.pgrst.object+json"; charset=utf-8`)
	})
	t.Run("the plan for CSV", func(t *testing.T) {
		res := s.get(t, "/plan_projects", planAccept, `application/vnd.pgrst.plan+text; for="text/csv"`)
		planExpect(t, res, `application/vnd.pgrst.plan+text; for="text/csv"; charset=utf-8`)
	})
	t.Run("a plan range more specific than application/json is preferred, as in PostgREST", func(t *testing.T) {
		res := s.get(t, "/plan_projects", planAccept, `application/json, application/vnd.pgrst.plan+json;for="application/json"`)
		planExpect(t, res, jsonPlan)
	})
	t.Run("application/json preferred by q is not a plan", func(t *testing.T) {
		res := s.get(t, "/plan_projects?id=eq.1", planAccept, "application/json, application/vnd.pgrst.plan+json;q=0.5")
		if res.Status != 200 || string(res.Body) != `[{"id":1,"name":"Windows 7"}]` {
			t.Errorf("status %d, body %s", res.Status, res.Body)
		}
	})
	t.Run("unknown options, however written, add nothing to the statement", func(t *testing.T) {
		res := s.get(t, "/plan_projects", planAccept,
			`application/vnd.pgrst.plan+json; options=analyze)|costs off|format xml);drop table api.plan_projects;--`)
		planExpect(t, res, jsonPlan)
		if _, analyzed := planNode(t, res)["Actual Rows"]; analyzed {
			t.Errorf("an option that is not analyze ran analyze")
		}
		if got := planProjectNames(t, s); !strings.Contains(got, "Windows 7") {
			t.Errorf("rows %s", got)
		}
	})
	t.Run("a plan for a media type the table cannot produce is 406", func(t *testing.T) {
		res := s.get(t, "/plan_projects", planAccept, `application/vnd.pgrst.plan+json; for="text/xml"`)
		e := res.expectError(t, 406, "PGRST107")
		if want := `None of these media types are available: application/vnd.pgrst.plan+json; for="text/xml"`; e["message"] != want {
			t.Errorf("message %q, want %q", e["message"], want)
		}
	})
	t.Run("request errors are still errors", func(t *testing.T) {
		s.get(t, "/plan_nothing", planAccept, "application/vnd.pgrst.plan").expectError(t, 404, "PGRST205")
		s.get(t, "/plan_projects?id=eq.x", planAccept, "application/vnd.pgrst.plan+json; options=analyze").expectError(t, 400, "22P02")
	})
	t.Run("OPTIONS is not explained", func(t *testing.T) {
		res := s.do(t, "OPTIONS", "/plan_projects", "", planAccept, "application/vnd.pgrst.plan")
		if res.Status != 200 || strings.HasPrefix(res.Header.Get("Content-Type"), "application/vnd.pgrst.plan") {
			t.Errorf("status %d, Content-Type %q", res.Status, res.Header.Get("Content-Type"))
		}
	})
}

func TestPlanOfWritesIsAlwaysRolledBack(t *testing.T) {
	s := startServer(t, "db_plan_enabled true", "db_plan_analyze_roles web_anon", "db_tx_end commit-allow-override")
	const analyzed = "application/vnd.pgrst.plan+json; options=analyze"
	const jsonAnalyzed = `application/vnd.pgrst.plan+json; for="application/json"; options=analyze; charset=utf-8`
	before := planProjectNames(t, s)

	for _, tc := range []struct {
		name, method, path, body, prefer string
	}{
		{"an insert", "POST", "/plan_projects", `{"id":100,"name":"Project 100"}`, ""},
		{"an insert asking to commit", "POST", "/plan_projects", `{"id":101,"name":"Project 101"}`, "tx=commit"},
		{"an upsert of two rows", "POST", "/plan_projects", `[{"id":1,"name":"Renamed"},{"id":102,"name":"Project 102"}]`,
			"resolution=merge-duplicates"},
		{"an update", "PATCH", "/plan_projects?id=eq.3", `{"name":"Patched Project"}`, ""},
		{"a delete", "DELETE", "/plan_projects?id=in.(1,2,3)", "", ""},
		{"a delete returning its rows", "DELETE", "/plan_projects?id=eq.4", "", "return=representation"},
		{"a put", "PUT", "/plan_projects?id=eq.2", `{"id":2,"name":"Put Project"}`, ""},
		{"a call of a volatile function", "POST", "/rpc/plan_add_project", `{"id":103,"name":"Project 103"}`, ""},
	} {
		t.Run(tc.name+" is explained, analyzed and rolled back", func(t *testing.T) {
			headers := []string{planAccept, analyzed}
			if tc.prefer != "" {
				headers = append(headers, "Prefer", tc.prefer)
			}
			res := s.do(t, tc.method, tc.path, tc.body, headers...)
			planExpect(t, res, jsonAnalyzed)
			if _, ok := planNode(t, res)["Actual Rows"]; !ok {
				t.Errorf("the plan was not analyzed: %s", res.Body)
			}
			if got := planProjectNames(t, s); got != before {
				t.Errorf("rows after the plan:\n%s\nwant\n%s", got, before)
			}
		})
	}
	t.Run("the plan of a delete for a single object", func(t *testing.T) {
		res := s.do(t, "DELETE", "/plan_projects?id=eq.4", "", "Prefer", "return=representation",
			planAccept, `application/vnd.pgrst.plan+json; for="application/vnd.pgrst.object"; options=verbose`)
		planExpect(t, res, `application/vnd.pgrst.plan+json; for="application/vnd.pgrst.object+json"; options=verbose; charset=utf-8`)
	})
}

func TestPlanOfFunctionCalls(t *testing.T) {
	s := startServer(t, "db_plan_enabled true")
	res := s.get(t, "/rpc/plan_projects_below?bound=3", planAccept, "application/vnd.pgrst.plan+json")
	planExpect(t, res, `application/vnd.pgrst.plan+json; for="application/json"; charset=utf-8`)
	if cost, ok := planNode(t, res)["Total Cost"].(float64); !ok || cost <= 0 {
		t.Errorf("Total Cost %v, want a positive number", planNode(t, res)["Total Cost"])
	}
	t.Run("a stable SQL function is inlined and does not appear in the plan", func(t *testing.T) {
		res := s.get(t, "/rpc/plan_projects_below?bound=3", planAccept, "application/vnd.pgrst.plan")
		planExpect(t, res, `application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8`)
		if strings.Contains(string(res.Body), "plan_projects_below") {
			t.Errorf("the function was not inlined:\n%s", res.Body)
		}
	})
}

func TestPlanRequestHeadersAreTheClientsOwn(t *testing.T) {
	s := startServer(t, "db_plan_enabled true", "db_pre_request api.plan_echo_accept")
	const accept = `application/vnd.pgrst.plan+json; for="text/csv"`
	e := s.get(t, "/plan_projects", planAccept, accept, "X-Echo-Accept", "yes").expectError(t, 400, "P0001")
	if e["message"] != accept {
		t.Errorf("request.headers held Accept %q, want %q", e["message"], accept)
	}
}
