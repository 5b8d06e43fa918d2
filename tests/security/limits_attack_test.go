package security

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// Bounded work per request, and plans that show nothing row-level security
// hides: a query string that asks for more than any application does is
// refused before it reaches the database, and only the roles of
// db_plan_analyze_roles may have their statement run under EXPLAIN
// ANALYZE. private.note_request, the server's pre-request function, tells
// which requests reached the database.

// startLimitsServer serves the fixture with plans on, webuser the one role
// that may analyze, and every request that reaches the database noted.
func startLimitsServer(t *testing.T) *pgresttest.Server {
	t.Helper()
	return startServer(t, "db_plan_enabled true", "db_plan_analyze_roles webuser",
		"db_pre_request private.note_request")
}

// seenRequests is how many requests reached the database so far.
func seenRequests(t *testing.T) int64 {
	t.Helper()
	return pgresttest.SQLInt(t, db.SuperDSN, "select count(*) from private.seen_requests")
}

// reachedDatabase sends the request send makes and says whether it
// reached the database.
func reachedDatabase(t *testing.T, send func() *pgresttest.Response) (*pgresttest.Response, bool) {
	t.Helper()
	before := seenRequests(t)
	res := send()
	return res, seenRequests(t) > before
}

// nestedEmbed is a select of items embedding reviews embedding items, and
// so on, depth embeds deep.
func nestedEmbed(depth int) string {
	s := "id"
	for level := depth; level >= 1; level-- {
		relation := "items"
		if level%2 == 1 {
			relation = "reviews"
		}
		s = "id," + relation + "(" + s + ")"
	}
	return s
}

// repeated is n copies of item joined by sep.
func repeated(n int, sep string, item func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = item(i)
	}
	return strings.Join(parts, sep)
}

// nestedLogic is an or=... of depth nested and/or trees around one filter.
func nestedLogic(depth int) string {
	s := "id.eq.1"
	for level := 2; level <= depth; level++ {
		op := "and"
		if level%2 == 1 {
			op = "or"
		}
		s = op + "(" + s + ")"
	}
	return "or=(" + s + ")"
}

func TestOverComplexQueriesAreRefusedBeforeTheDatabase(t *testing.T) {
	s := startLimitsServer(t)
	t.Cleanup(func() { resetCanaries(t) })

	column := func(int) string { return "id" }
	filter := func(i int) string { return fmt.Sprintf("id=neq.%d", i) }
	for _, tc := range []struct{ name, target string }{
		{"a 16-level nested embed", "/items?id=eq.1&select=" + nestedEmbed(16)},
		{"2000 select items over two levels", "/items?id=eq.1&select=" + repeated(1000, ",", column) +
			",reviews(" + repeated(999, ",", column) + ")"},
		{"32 levels of and/or", "/items?select=id&" + nestedLogic(32)},
		{"1000 filters", "/items?select=id&" + repeated(1000, "&", filter)},
	} {
		t.Run(tc.name+" is served", func(t *testing.T) {
			res, reached := reachedDatabase(t, func() *pgresttest.Response { return s.Get(t, tc.target) })
			res.ExpectStatus(t, 200)
			if !reached {
				t.Fatal("the request was not noted: the test could not see a request reach the database")
			}
		})
	}
	for _, tc := range []struct{ name, target, details string }{
		{"an 80-level nested embed", "/items?select=" + nestedEmbed(80), "embedded resources nested deeper than 16 levels"},
		{"101 embeds", "/items?select=id," + repeated(101, ",", func(i int) string { return fmt.Sprintf("r%d:reviews(id)", i) }),
			"101 embedded resources"},
		{"2001 select items", "/items?select=" + repeated(1000, ",", column) + ",reviews(" + repeated(1000, ",", column) + ")",
			"2001 select items"},
		{"33 levels of and/or", "/items?select=id&" + nestedLogic(33), "and/or nested deeper than 32 levels"},
		{"1001 filters", "/items?select=id&" + repeated(1001, "&", filter), "1001 filters"},
		{"1001 filters in one or", "/items?select=id&or=(" + repeated(1001, ",", func(i int) string { return fmt.Sprintf("id.eq.%d", i) }) + ")",
			"1001 filters"},
	} {
		t.Run(tc.name+" is 400 PGRST191 and never reaches the database", func(t *testing.T) {
			res, reached := reachedDatabase(t, func() *pgresttest.Response { return s.Get(t, tc.target) })
			e := res.ExpectError(t, 400, "PGRST191")
			if d, _ := e["details"].(string); !strings.Contains(d, tc.details) {
				t.Errorf("details %q do not say %q", d, tc.details)
			}
			if reached {
				t.Errorf("the request reached the database")
			}
		})
	}
	t.Run("the limits hold for writes too", func(t *testing.T) {
		res, reached := reachedDatabase(t, func() *pgresttest.Response {
			return s.Do(t, "PATCH", "/items?id=eq.1&select="+nestedEmbed(80), `{"title":"x"}`,
				append(pgresttest.Bearer(userToken(t)), "Content-Type", "application/json", "Prefer", "return=representation")...)
		})
		res.ExpectError(t, 400, "PGRST191")
		if reached {
			t.Errorf("the request reached the database")
		}
	})
}

// planAccept asks for the JSON plan with options (none when empty).
func planAccept(options string) []string {
	accept := "application/vnd.pgrst.plan+json"
	if options != "" {
		accept += "; options=" + options
	}
	return []string{"Accept", accept}
}

// analyzed says whether a JSON plan's top node has actual figures.
func analyzed(t *testing.T, res *pgresttest.Response) bool {
	t.Helper()
	var plans []struct {
		Plan map[string]any `json:"Plan"`
	}
	if err := json.Unmarshal(res.Body, &plans); err != nil || len(plans) != 1 || plans[0].Plan == nil {
		t.Fatalf("body is not one JSON plan (%v): %s", err, res.Body)
	}
	_, ok := plans[0].Plan["Actual Rows"]
	return ok
}

func TestPlanAnalyzeIsOptInPerRole(t *testing.T) {
	s := startLimitsServer(t)
	t.Cleanup(func() { resetCanaries(t) })
	user := pgresttest.Bearer(userToken(t))
	// Row 2 is webuser's: web_anon's analyzed plan would count it in
	// "Rows Removed by Filter".
	const hidden = "/rls_notes?id=eq.2"

	t.Run("analyze by a role not listed is 403 PGRST192 and never reaches the database", func(t *testing.T) {
		res, reached := reachedDatabase(t, func() *pgresttest.Response { return s.Get(t, hidden, planAccept("analyze")...) })
		e := res.ExpectError(t, 403, "PGRST192")
		if d, _ := e["details"].(string); !strings.Contains(d, `"web_anon"`) {
			t.Errorf("details %q do not name the role", d)
		}
		if strings.Contains(string(res.Body), "Removed") {
			t.Errorf("the answer tells of removed rows: %s", res.Body)
		}
		if reached {
			t.Errorf("the request reached the database")
		}
	})
	t.Run("analyze among other options is refused too", func(t *testing.T) {
		s.Get(t, hidden, planAccept("verbose|analyze|buffers")...).ExpectError(t, 403, "PGRST192")
	})
	t.Run("analyze by a listed role is served", func(t *testing.T) {
		res := s.Get(t, hidden, append(planAccept("analyze"), user...)...)
		res.ExpectStatus(t, 200)
		if !analyzed(t, res) {
			t.Errorf("the plan was not analyzed: %s", res.Body)
		}
	})
	t.Run("the plain plan is served to every role", func(t *testing.T) {
		for name, auth := range map[string][]string{"web_anon": nil, "webuser": user} {
			for _, options := range []string{"", "verbose|settings"} {
				res := s.Get(t, hidden, append(planAccept(options), auth...)...)
				res.ExpectStatus(t, 200)
				if analyzed(t, res) {
					t.Errorf("%s, options %q: the plan was analyzed: %s", name, options, res.Body)
				}
			}
		}
	})
}
