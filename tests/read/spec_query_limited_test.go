package read

import (
	"net/http"
	"testing"
)

// TestQueryLimitedSpecEstimatedCount mirrors QueryLimitedSpec's
// "count=estimated" with db_max_rows 2: HEAD of a view over a function
// declared ROWS 2019 counts the planner's guess when the rows pass
// db_max_rows, the exact count when they do not, and the guess only when
// it is larger than the count (a function declared ROWS 1 whose view
// has 4 rows: the count, bounded at db_max_rows + 1, is 3).
func TestQueryLimitedSpecEstimatedCount(t *testing.T) {
	s := startSpecServer(t, "db_max_rows 2")
	estimated := []string{"Prefer", "count=estimated"}
	headers := func(contentRange string) map[string]string {
		return map[string]string{"Content-Type": "application/json; charset=utf-8", "Content-Range": contentRange}
	}
	runSpecRequests(t, s, []specRequest{
		{name: "uses the query planner guess when query rows > maxRows", method: http.MethodHead,
			path: "/getallprojects_view", header: estimated, status: http.StatusPartialContent, match: headers("0-1/2019")},
		{name: "gives exact count when query rows <= maxRows", method: http.MethodHead,
			path: "/getallprojects_view?id=lt.3", header: estimated, match: headers("0-1/2")},
		{name: "only uses the query planner guess if it's indeed greater than the exact count", method: http.MethodHead,
			path: "/get_projects_above_view", header: estimated, status: http.StatusPartialContent, match: headers("0-1/3")},
	})
}

// TestQueryLimitedSpec mirrors the rest of QueryLimitedSpec ("Requesting
// many items with server limits(max-rows) enabled", db_max_rows 2): every
// level is limited, to-one embeds are not, writes are not. The writes end
// in a rollback (Prefer: tx=rollback), as every request of PostgREST's
// spec does.
func TestQueryLimitedSpec(t *testing.T) {
	s := startSpecMediaServer(t, "db_max_rows 2", "db_tx_end rollback-allow-override")
	contentRange := func(v string) map[string]string { return map[string]string{"Content-Range": v} }
	rollback := []string{"Prefer", "return=representation, tx=rollback"}
	runSpecRequests(t, s, []specRequest{
		{name: "restricts results", path: "/items?order=id", body: `[{"id":1},{"id":2}]`, match: contentRange("0-1/*")},
		{name: "respects additional client limiting", path: "/items", header: []string{"Range", "0-0"},
			body: `[{"id":1}]`, match: contentRange("0-0/*")},
		{name: "works on all levels", path: "/users?select=id,tasks(id)&order=id.asc&tasks.order=id.asc",
			body: `[{"id":1,"tasks":[{"id":1},{"id":2}]},{"id":2,"tasks":[{"id":5},{"id":6}]}]`, match: contentRange("0-1/*")},
		{name: "succeeds in getting parent embeds despite the limit, see #647", path: "/tasks?select=id,project:projects(id)&id=gt.5",
			body: `[{"id":6,"project":{"id":3}},{"id":7,"project":{"id":4}}]`, match: contentRange("0-1/*")},
		{name: "can offset the parent embed, being consistent with the other embed types",
			path: "/tasks?select=id,project:projects(id)&id=gt.5&project.offset=1",
			body: `[{"id":6,"project":null}, {"id":7,"project":null}]`, match: contentRange("0-1/*")},
		{name: "max-rows=2 on mutations/doesn't affect insertions", method: http.MethodPost, path: "/projects?select=id,name",
			header: rollback, reqBody: `[{"id": 6, "name": "BeOS"}, {"id": 7, "name": "PopOS"}, {"id": 8, "name": "HaikuOS"}]`,
			status: http.StatusCreated, body: `[{"id": 6, "name": "BeOS"}, {"id": 7, "name": "PopOS"}, {"id": 8, "name": "HaikuOS"}]`},
		{name: "max-rows=2 on mutations/doesn't affect updates(2 rows would be modified if it did)", method: http.MethodPatch,
			path: "/employees?select=first_name,last_name,occupation&order=last_name", header: rollback, reqBody: `[{"occupation": "Barista"}]`,
			body: `[{"first_name": "Daniel B.", "last_name": "Lyon", "occupation": "Barista"},
				{"first_name": "Frances M.", "last_name": "Roe", "occupation": "Barista"},
				{"first_name": "Edwin S.", "last_name": "Smith", "occupation": "Barista"}]`},
		{name: "max-rows=2 on mutations/doesn't affect deletions", method: http.MethodDelete,
			path: "/employees?select=first_name,last_name&order=last_name", header: rollback,
			body: `[{"first_name": "Daniel B.", "last_name": "Lyon"}, {"first_name": "Frances M.", "last_name": "Roe"},
				{"first_name": "Edwin S.", "last_name": "Smith"}]`},
		{name: "max-rows is set and limits are requested/should work with limit 0", path: "/items?limit=0",
			body: `[]`, match: contentRange("*/*")},
	})
}
