package read

import (
	"strconv"
	"strings"
	"testing"
)

// rangeHeaders is PostgREST's rangeHdrs: Range-Unit items and a Range of
// the bounds given ("0-1", "0-").
func rangeHeaders(bounds string, h ...string) []string {
	return append([]string{"Range-Unit", "items", "Range", bounds}, h...)
}

// itemsJSON is the body of items' ids from..to, as PostgREST's spec
// writes it.
func itemsJSON(from, to int) string {
	ids := make([]string, 0, to-from+1)
	for id := from; id <= to; id++ {
		ids = append(ids, `{"id":`+strconv.Itoa(id)+`}`)
	}
	return "[" + strings.Join(ids, ",") + "]"
}

// notSatisfiable is PGRST103's body with details.
func notSatisfiable(details string) string {
	return `{"message":"Requested range not satisfiable","code":"PGRST103","details":"` + details + `","hint":null}`
}

// TestRangeSpecGetItemRange mirrors RangeSpec's "GET /rpc/getitemrange":
// a function's rows paged by limit, offset and the Range header.
func TestRangeSpecGetItemRange(t *testing.T) {
	s := startSpecServer(t)
	exact := []string{"Prefer", "count=exact"}
	runSpecRequests(t, s, append([]specRequest{
		{name: "without range headers/with response under server size limit/returns whole range with status 200",
			path: "/rpc/getitemrange?min=0&max=15", body: itemsJSON(1, 15)},
		{name: "without range headers/when I don't want the count/returns range Content-Range with */* for empty range",
			path: "/rpc/getitemrange?min=2&max=2", body: `[]`, match: map[string]string{"Content-Range": "*/*", "Content-Length": "2"}},
		{name: "without range headers/when I don't want the count/returns range Content-Range with range/*",
			path: "/rpc/getitemrange?order=id&min=0&max=15", body: itemsJSON(1, 15), match: map[string]string{"Content-Range": "0-14/*"}},
		{name: "without range headers/of invalid range/refuses a range with nonzero start when there are no items",
			path: "/rpc/getitemrange?offset=1&min=2&max=2", header: exact, status: 416,
			body:  notSatisfiable("An offset of 1 was requested, but there are only 0 rows."),
			match: map[string]string{"Content-Range": "*/0", "Content-Length": "144"}},
		{name: "without range headers/of invalid range/refuses a range requesting start past last item",
			path: "/rpc/getitemrange?offset=100&min=0&max=15", header: exact, status: 416,
			body:  notSatisfiable("An offset of 100 was requested, but there are only 15 rows."),
			match: map[string]string{"Content-Range": "*/15"}},
	}, rangeHeaderCases("/rpc/getitemrange?min=0&max=15", "/rpc/getitemrange?min=2&max=2")...))
}

// TestRangeSpecItems mirrors RangeSpec's "GET /items": a table's rows
// paged by limit, offset and the Range header, at every level of the
// embeds, and counted exactly or by the planner.
func TestRangeSpecItems(t *testing.T) {
	s := startSpecServer(t)
	exact := []string{"Prefer", "count=exact"}
	none := []string{"Prefer", "count=none"}
	planned := []string{"Prefer", "count=planned"}
	ctJSON := "application/json; charset=utf-8"
	runSpecRequests(t, s, append([]specRequest{
		{name: "without range headers/with response under server size limit/returns whole range with status 200",
			path: "/items", body: itemsJSON(1, 15)},
		{name: "without range headers/count with an empty body/returns empty body with Content-Range */0",
			path: "/items?id=eq.0", header: exact, body: `[]`, match: map[string]string{"Content-Range": "*/0"}},
		{name: "without range headers/when I don't want the count/returns range Content-Range with /*",
			path: "/menagerie", header: none, body: `[]`, match: map[string]string{"Content-Range": "*/*"}},
		{name: "without range headers/when I don't want the count/returns range Content-Range with range/*",
			path: "/items?order=id", header: none, body: itemsJSON(1, 15), match: map[string]string{"Content-Range": "0-14/*"}},
		{name: "without range headers/when I don't want the count/returns range Content-Range with range/* even using other filters",
			path: "/items?id=eq.1&order=id", header: none, body: itemsJSON(1, 1), match: map[string]string{"Content-Range": "0-0/*"}},

		{name: "with limit/offset parameters/no parameters return everything",
			path: "/items?select=id&order=id.asc", body: itemsJSON(1, 15), match: map[string]string{"Content-Range": "0-14/*"}},
		{name: "with limit/offset parameters/top level limit with parameter",
			path: "/items?select=id&order=id.asc&limit=3", body: itemsJSON(1, 3), match: map[string]string{"Content-Range": "0-2/*"}},
		{name: "with limit/offset parameters/headers override get parameters",
			path: "/items?select=id&order=id.asc&limit=3", header: rangeHeaders("0-1"), body: itemsJSON(1, 2),
			match: map[string]string{"Content-Range": "0-1/*"}},
		{name: "with limit/offset parameters/limit works on all levels",
			path:  "/clients?select=id,projects(id,tasks(id))&order=id.asc&limit=1&projects.order=id.asc&projects.limit=2&projects.tasks.order=id.asc&projects.tasks.limit=1",
			body:  `[{"id":1,"projects":[{"id":1,"tasks":[{"id":1}]},{"id":2,"tasks":[{"id":3}]}]}]`,
			match: map[string]string{"Content-Range": "0-0/*"}},
		{name: "with limit/offset parameters/limit and offset works on first level",
			path: "/items?select=id&order=id.asc&limit=3&offset=2", body: itemsJSON(3, 5), match: map[string]string{"Content-Range": "2-4/*"}},
		{name: "with limit/offset parameters/limit and offset works on first level (HEAD)", method: "HEAD",
			path: "/items?select=id&order=id.asc&limit=3&offset=2", match: map[string]string{"Content-Type": ctJSON, "Content-Range": "2-4/*"}},
		{name: "with limit/offset parameters/works alongside order by with nulls order",
			path:  "/clients?select=id,projects(id,tasks(id))&order=id.asc.nullslast&limit=1&projects.order=id.asc.nullsfirst&projects.limit=2",
			body:  `[{"id":1,"projects":[{"id":1,"tasks":[{"id":1},{"id":2}]},{"id":2,"tasks":[{"id":3},{"id":4}]}]}]`,
			match: map[string]string{"Content-Range": "0-0/*"}},
		{name: "with limit/offset parameters/succeeds if offset equals 0 as a no-op/no items",
			path: "/items?offset=0&id=eq.0", body: `[]`, match: map[string]string{"Content-Range": "*/*"}},
		{name: "with limit/offset parameters/succeeds if offset equals 0 as a no-op/no items counted",
			path: "/items?offset=0&id=eq.0", header: exact, body: `[]`, match: map[string]string{"Content-Range": "*/0"}},
		{name: "with limit/offset parameters/succeeds if offset equals 0 as a no-op/one or more items",
			path: "/items?select=id&offset=0&order=id", body: itemsJSON(1, 15), match: map[string]string{"Content-Range": "0-14/*"}},
		{name: "with limit/offset parameters/succeeds if offset is negative as a no-op",
			path: "/items?select=id&offset=-4&order=id", body: itemsJSON(1, 15), match: map[string]string{"Content-Range": "0-14/*"}},
		{name: "with limit/offset parameters/succeeds and returns an empty array if limit equals 0",
			path: "/items?select=id&limit=0", body: `[]`, match: map[string]string{"Content-Range": "*/*"}},
		{name: "with limit/offset parameters/fails if limit is negative",
			path: "/items?select=id&limit=-1", status: 416, body: notSatisfiable("Limit should be greater than or equal to zero."),
			match: map[string]string{"Content-Type": ctJSON}},
		{name: "with limit/offset parameters/of invalid range/refuses a range with nonzero start when there are no items",
			path: "/menagerie?offset=1", header: exact, status: 416,
			body:  notSatisfiable("An offset of 1 was requested, but there are only 0 rows."),
			match: map[string]string{"Content-Range": "*/0", "Content-Length": "144"}},
		{name: "with limit/offset parameters/of invalid range/refuses a range requesting start past last item",
			path: "/items?offset=100", header: exact, status: 416,
			body:  notSatisfiable("An offset of 100 was requested, but there are only 15 rows."),
			match: map[string]string{"Content-Range": "*/15"}},

		{name: "when count=planned/obtains a filtered range/items",
			path: "/items?select=id&id=gt.8", header: planned, status: 206, body: itemsJSON(9, 15),
			match: map[string]string{"Content-Range": "0-6/8"}},
		{name: "when count=planned/obtains a filtered range/child_entities",
			path: "/child_entities?select=id&id=gt.3", header: planned, status: 206, body: `[{"id":4},{"id":5},{"id":6}]`,
			match: map[string]string{"Content-Range": "0-2/4"}},
		{name: "when count=planned/obtains a filtered range/getallprojects_view",
			path: "/getallprojects_view?select=id&id=lt.3", header: planned, status: 206, body: `[{"id":1},{"id":2}]`,
			match: map[string]string{"Content-Range": "0-1/673"}},
		{name: "when count=planned/obtains the full range/items", method: "HEAD", path: "/items", header: planned,
			match: map[string]string{"Content-Type": ctJSON, "Content-Range": "0-14/15"}},
		{name: "when count=planned/obtains the full range/child_entities", method: "HEAD", path: "/child_entities", header: planned,
			match: map[string]string{"Content-Type": ctJSON, "Content-Range": "0-5/6"}},
		{name: "when count=planned/obtains the full range/getallprojects_view", method: "HEAD", path: "/getallprojects_view", header: planned,
			status: 206, match: map[string]string{"Content-Type": ctJSON, "Content-Range": "0-4/2019"}},
		{name: "when count=planned/ignores limit/offset on the planned count/items", method: "HEAD", path: "/items?limit=2&offset=3",
			header: planned, status: 206, match: map[string]string{"Content-Type": ctJSON, "Content-Range": "3-4/15"}},
		{name: "when count=planned/ignores limit/offset on the planned count/child_entities", method: "HEAD", path: "/child_entities?limit=2",
			header: planned, status: 206, match: map[string]string{"Content-Type": ctJSON, "Content-Range": "0-1/6"}},
		{name: "when count=planned/ignores limit/offset on the planned count/getallprojects_view", method: "HEAD", path: "/getallprojects_view?limit=2",
			header: planned, status: 206, match: map[string]string{"Content-Type": ctJSON, "Content-Range": "0-1/2019"}},
		{name: "when count=planned/works with two levels", method: "HEAD", path: "/child_entities?select=*,entities(*)",
			header: planned, match: map[string]string{"Content-Type": ctJSON, "Content-Range": "0-5/6"}},
	}, rangeHeaderCases("/items", "/menagerie")...))
}

// rangeHeaderCases are RangeSpec's "with range headers" cases, the same
// for the function's rows and the table's: all is a path of items 1 to
// 15, empty one of no rows.
func rangeHeaderCases(all, empty string) []specRequest {
	exact := []string{"Prefer", "count=exact"}
	return []specRequest{
		{name: "with range headers/of acceptable range/succeeds with partial content",
			path: all, header: rangeHeaders("0-1"), body: itemsJSON(1, 2),
			match: map[string]string{"Content-Range": "0-1/*", "Content-Length": "22"}},
		{name: "with range headers/of acceptable range/understands open-ended ranges",
			path: all, header: rangeHeaders("0-"), body: itemsJSON(1, 15)},
		{name: "with range headers/of acceptable range/returns an empty body when there are no results",
			path: empty, header: rangeHeaders("0-1"), body: `[]`, match: map[string]string{"Content-Range": "*/*"}},
		{name: "with range headers/of acceptable range/allows one-item requests",
			path: all, header: rangeHeaders("0-0"), body: itemsJSON(1, 1), match: map[string]string{"Content-Range": "0-0/*"}},
		{name: "with range headers/of acceptable range/handles ranges beyond collection length via truncation",
			path: all, header: rangeHeaders("10-100"), body: itemsJSON(11, 15), match: map[string]string{"Content-Range": "10-14/*"}},
		{name: "with range headers/of invalid range/fails with 416 for offside range",
			path: empty, header: rangeHeaders("1-0"), status: 416,
			body: notSatisfiable("The lower boundary must be lower than or equal to the upper boundary in the Range header.")},
		{name: "with range headers/of invalid range/refuses a range with nonzero start when there are no items",
			path: empty, header: rangeHeaders("1-2", exact...), status: 416,
			body:  notSatisfiable("An offset of 1 was requested, but there are only 0 rows."),
			match: map[string]string{"Content-Range": "*/0", "Content-Length": "144"}},
		{name: "with range headers/of invalid range/refuses a range requesting start past last item",
			path: all, header: rangeHeaders("100-199", exact...), status: 416,
			body:  notSatisfiable("An offset of 100 was requested, but there are only 15 rows."),
			match: map[string]string{"Content-Range": "*/15"}},
	}
}
