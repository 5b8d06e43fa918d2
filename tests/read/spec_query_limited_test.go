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
