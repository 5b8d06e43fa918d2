package apirequest

import (
	"slices"
	"testing"
)

func TestNegotiatePlan(t *testing.T) {
	offered := []MediaType{MediaJSON, MediaSingleObject, MediaCSV}
	for _, tc := range []struct {
		name, accept string
		enabled      bool
		// contentType is the plan's, "" when no plan is chosen.
		contentType string
		// refused is the PGRST107 message, "" when none.
		refused string
	}{
		{"no Accept is no plan", "", true, "", ""},
		{"application/json is no plan", "application/json", true, "", ""},
		{"the bare plan type is text for JSON", "application/vnd.pgrst.plan", true,
			`application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8`, ""},
		{"+text", "application/vnd.pgrst.plan+text", true,
			`application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8`, ""},
		{"+json", "application/vnd.pgrst.plan+json", true,
			`application/vnd.pgrst.plan+json; for="application/json"; charset=utf-8`, ""},
		{"for quoted, blanks anywhere", `application/vnd.pgrst.plan+json ;  for = "text/csv"`, true,
			`application/vnd.pgrst.plan+json; for="text/csv"; charset=utf-8`, ""},
		{"for unquoted", `application/vnd.pgrst.plan+json;for=text/csv`, true,
			`application/vnd.pgrst.plan+json; for="text/csv"; charset=utf-8`, ""},
		{"for the object type is spelled out", `application/vnd.pgrst.plan; for="application/vnd.pgrst.object"`, true,
			`application/vnd.pgrst.plan+text; for="application/vnd.pgrst.object+json"; charset=utf-8`, ""},
		{"for the array type is JSON", `application/vnd.pgrst.plan; for="application/vnd.pgrst.array+json"`, true,
			`application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8`, ""},
		{"options in PostgREST's order, each once, unknown ones dropped",
			`application/vnd.pgrst.plan+json; options=wal|nope|analyze|settings|analyze|buffers|verbose`, true,
			`application/vnd.pgrst.plan+json; for="application/json"; options=analyze|verbose|settings|buffers|wal; charset=utf-8`, ""},
		{"only unknown options is none", `application/vnd.pgrst.plan+json; options=ANALYZE|costs`, true,
			`application/vnd.pgrst.plan+json; for="application/json"; charset=utf-8`, ""},
		{"the first for counts", `application/vnd.pgrst.plan; for="text/csv"; for="application/json"`, true,
			`application/vnd.pgrst.plan+text; for="text/csv"; charset=utf-8`, ""},
		{"q=0 refuses the plan", "application/vnd.pgrst.plan;q=0, application/json", true, "", ""},
		{"a higher q wins over the plan", "application/vnd.pgrst.plan;q=0.5, text/csv", true, "", ""},
		{"a more specific range wins at equal q", `text/csv, application/vnd.pgrst.plan+json;for="text/csv"`, true,
			`application/vnd.pgrst.plan+json; for="text/csv"; charset=utf-8`, ""},
		{"a wildcard loses to the plan", "*/*, application/vnd.pgrst.plan", true,
			`application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8`, ""},
		{"disabled, the plan is passed over", "application/vnd.pgrst.plan, application/json", false, "", ""},
		{"disabled with nothing else is 406", "application/vnd.pgrst.plan", false, "",
			`None of these media types are available: application/vnd.pgrst.plan+text; for="application/json"`},
		{"disabled, the 406 names the options", "application/vnd.pgrst.plan+json; options=analyze|buffers", false, "",
			`None of these media types are available: application/vnd.pgrst.plan+json; for="application/json"; options=analyze|buffers`},
		{"a plan for a type not offered is passed over", `application/vnd.pgrst.plan; for="text/xml", text/csv`, true, "", ""},
		{"a plan for a type not offered alone is 406", `application/vnd.pgrst.plan; for="text/xml"`, true, "",
			`None of these media types are available: application/vnd.pgrst.plan+text; for="text/xml"`},
		{"a plan for a plan is not offered", `application/vnd.pgrst.plan; for="application/vnd.pgrst.plan"`, true, "",
			`None of these media types are available: application/vnd.pgrst.plan+text; for="application/vnd.pgrst.plan"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok, aerr := NegotiatePlan(tc.accept, offered, tc.enabled, nil)
			switch {
			case tc.refused != "":
				if aerr == nil || aerr.Code != "PGRST107" || aerr.Status != 406 || aerr.Message != tc.refused {
					t.Fatalf("got %v, want 406 PGRST107 %q", aerr, tc.refused)
				}
			case aerr != nil:
				t.Fatalf("got %v, want no error", aerr)
			case tc.contentType == "" && ok:
				t.Fatalf("got plan %s, want none", p.ContentType())
			case tc.contentType != "" && (!ok || p.ContentType() != tc.contentType):
				t.Fatalf("got plan %v %q, want %q", ok, p.ContentType(), tc.contentType)
			}
		})
	}
}

func TestPlanOptionsComeOnlyFromTheList(t *testing.T) {
	for _, tc := range []struct {
		accept string
		want   []PlanOption
	}{
		{`application/vnd.pgrst.plan+json; options=analyze)|verbose|format xml)`, []PlanOption{PlanVerbose}},
		// A semicolon ends the parameter, as it does for PostgREST.
		{`application/vnd.pgrst.plan+json; options=analyze);drop table x;--|verbose`, nil},
	} {
		p, ok, _ := NegotiatePlan(tc.accept, []MediaType{MediaJSON}, true, nil)
		if !ok || !slices.Equal(p.Options, tc.want) {
			t.Errorf("%s: got %v %v, want %v", tc.accept, ok, p.Options, tc.want)
		}
	}
}
