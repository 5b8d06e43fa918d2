package read

import (
	"net/http"
	"testing"
)

// legacyWarning is PostgREST v16's deprecation warning, word for word,
// with pgrest as the warn-agent, for the replacements given
// ("`tasks` to `the_tasks`").
func legacyWarning(replacements string) string {
	return `299 pgrest "Embedded resource was referenced by relation name even though it has an alias. ` +
		`This is deprecated and will stop working in a future release. Update ` + replacements +
		` in query string filters, orders or limits."`
}

// expectNoWarning fails t if the response has a Warning header.
func expectNoWarning(t testing.TB, res *response) {
	t.Helper()
	if got := res.Header.Values("Warning"); len(got) != 0 {
		t.Errorf("Warning %q, want none", got)
	}
}

// Project 1's tasks are 1-6; those titled D* are "Design login" (1),
// "Deploy login" (5) and "Document login" (6).
const (
	aliasedTasks    = "/projects?id=eq.1&select=id,the_tasks:tasks(id,title)"
	aliasedTasksOut = `[{"id":1,"the_tasks":[{"id":5,"title":"Deploy login"}]}]`
)

// TestLegacyTargetNamesByDefault: url_use_legacy_target_names is true
// unless set, as in PostgREST v16. A filter, order or limit may name an
// aliased embed by its alias or, deprecated, by its relation.
func TestLegacyTargetNamesByDefault(t *testing.T) {
	s := startServer(t)

	t.Run("the alias names the embed, without a warning", func(t *testing.T) {
		res := s.Get(t, aliasedTasks+"&the_tasks.title=like.D*&the_tasks.order=title.asc&the_tasks.limit=1")
		res.ExpectStatus(t, http.StatusOK)
		expectCompactBody(t, res.Body, aliasedTasksOut)
		expectNoWarning(t, res)
	})

	t.Run("the relation names the embed, with PostgREST's deprecation warning", func(t *testing.T) {
		res := s.Get(t, aliasedTasks+"&tasks.title=like.D*&tasks.order=title.asc&tasks.limit=1")
		res.ExpectStatus(t, http.StatusOK)
		expectCompactBody(t, res.Body, aliasedTasksOut)
		if got := res.Header.Values("Warning"); len(got) != 1 || got[0] != legacyWarning("`tasks` to `the_tasks`") {
			t.Errorf("Warning %q, want one:\n%s", got, legacyWarning("`tasks` to `the_tasks`"))
		}
	})

	t.Run("offset and logic trees take the relation too", func(t *testing.T) {
		res := s.Get(t, aliasedTasks+"&tasks.or=(id.eq.2,id.eq.3,id.eq.4)&tasks.order=id&tasks.offset=1")
		res.ExpectStatus(t, http.StatusOK)
		expectCompactBody(t, res.Body, `[{"id":1,"the_tasks":[{"id":3,"title":"Test login"},{"id":4,"title":"Review login"}]}]`)
		expectHeader(t, res, "Warning", legacyWarning("`tasks` to `the_tasks`"))
	})

	t.Run("a HEAD carries the warning too", func(t *testing.T) {
		res := s.Head(t, aliasedTasks+"&tasks.id=eq.1")
		res.ExpectStatus(t, http.StatusOK)
		expectHeader(t, res, "Warning", legacyWarning("`tasks` to `the_tasks`"))
	})

	t.Run("one header names every replacement, outer embeds first", func(t *testing.T) {
		res := s.Get(t, "/clients?id=eq.1&select=id,ps:projects(id,ts:tasks(id))&projects.id=eq.1&projects.tasks.id=eq.2")
		res.ExpectStatus(t, http.StatusOK)
		expectCompactBody(t, res.Body, `[{"id":1,"ps":[{"id":1,"ts":[{"id":2}]}]}]`)
		if got := res.Header.Values("Warning"); len(got) != 1 || got[0] != legacyWarning("`projects` to `ps`, `tasks` to `ts`") {
			t.Errorf("Warning %q, want one:\n%s", got, legacyWarning("`projects` to `ps`, `tasks` to `ts`"))
		}
	})

	t.Run("an unaliased embed named by its relation has no warning", func(t *testing.T) {
		res := s.Get(t, "/projects?id=eq.1&select=id,tasks(id)&tasks.id=eq.2")
		res.ExpectStatus(t, http.StatusOK)
		expectCompactBody(t, res.Body, `[{"id":1,"tasks":[{"id":2}]}]`)
		expectNoWarning(t, res)
	})

	t.Run("an alias equal to the relation has no warning", func(t *testing.T) {
		res := s.Get(t, "/projects?id=eq.1&select=id,tasks:tasks(id)&tasks.id=eq.2")
		res.ExpectStatus(t, http.StatusOK)
		expectNoWarning(t, res)
	})

	t.Run("an error response has no warning", func(t *testing.T) {
		res := s.Get(t, aliasedTasks+"&tasks.id=eq.x")
		res.ExpectErrorFields(t, http.StatusBadRequest, "22P02", `invalid input syntax for type integer: "x"`, nil, nil)
		expectNoWarning(t, res)
	})

	// PostgREST's related orders name the embed by its alias only, with
	// or without legacy target names.
	runFailures(t, s, []failure{
		{name: "a related order names the alias only", path: "/projects?select=id,the_client:clients(name)&order=clients(name)",
			status: http.StatusBadRequest, code: "PGRST108", message: "'clients' is not an embedded resource in this request",
			hint: "Verify that 'clients' is included in the 'select' query parameter."},
	})
}

// TestLegacyTargetNamesOff: with url_use_legacy_target_names false the
// alias is the only name of an aliased embed.
func TestLegacyTargetNamesOff(t *testing.T) {
	s := startServer(t, "url_use_legacy_target_names false")

	t.Run("the alias names the embed", func(t *testing.T) {
		res := s.Get(t, aliasedTasks+"&the_tasks.title=like.D*&the_tasks.order=title.asc&the_tasks.limit=1")
		res.ExpectStatus(t, http.StatusOK)
		expectCompactBody(t, res.Body, aliasedTasksOut)
		expectNoWarning(t, res)
	})

	t.Run("an unaliased embed is named by its relation", func(t *testing.T) {
		res := s.Get(t, "/projects?id=eq.1&select=id,tasks(id)&tasks.id=eq.2")
		res.ExpectStatus(t, http.StatusOK)
		expectCompactBody(t, res.Body, `[{"id":1,"tasks":[{"id":2}]}]`)
		expectNoWarning(t, res)
	})

	aliasHint := "Change 'tasks' to 'the_tasks' in filters, orders or limits."
	notEmbedded := "'tasks' is not an embedded resource in this request"
	details := "Target names are not allowed in filters if they have an alias"
	runFailures(t, s, []failure{
		{name: "a filter naming the relation is PGRST108 naming the alias", path: aliasedTasks + "&tasks.id=eq.1",
			status: http.StatusBadRequest, code: "PGRST108", message: notEmbedded, details: details, hint: aliasHint},
		{name: "an order naming the relation", path: aliasedTasks + "&tasks.order=id",
			status: http.StatusBadRequest, code: "PGRST108", message: notEmbedded, details: details, hint: aliasHint},
		{name: "a limit naming the relation", path: aliasedTasks + "&tasks.limit=1",
			status: http.StatusBadRequest, code: "PGRST108", message: notEmbedded, details: details, hint: aliasHint},
		{name: "a nested path naming a relation", path: "/clients?id=eq.1&select=id,ps:projects(id,ts:tasks(id))&ps.tasks.id=eq.2",
			status: http.StatusBadRequest, code: "PGRST108", message: notEmbedded, details: details,
			hint: "Change 'tasks' to 'ts' in filters, orders or limits."},
		{name: "a name that is no embed keeps the plain hint", path: aliasedTasks + "&clients.id=eq.1",
			status: http.StatusBadRequest, code: "PGRST108", message: "'clients' is not an embedded resource in this request",
			hint: "Verify that 'clients' is included in the 'select' query parameter."},
	})
}

// TestLegacyTargetNamesInPlans: an execution plan answer carries the
// warning too, as every successful PostgREST response does.
func TestLegacyTargetNamesInPlans(t *testing.T) {
	s := startServer(t, "db_plan_enabled true")
	res := s.Get(t, aliasedTasks+"&tasks.id=eq.1", "Accept", "application/vnd.pgrst.plan+json")
	res.ExpectStatus(t, http.StatusOK)
	expectHeader(t, res, "Warning", legacyWarning("`tasks` to `the_tasks`"))

	res = s.Get(t, aliasedTasks+"&the_tasks.id=eq.1", "Accept", "application/vnd.pgrst.plan+json")
	res.ExpectStatus(t, http.StatusOK)
	expectNoWarning(t, res)
}
