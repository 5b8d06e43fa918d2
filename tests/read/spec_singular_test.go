package read

import "testing"

// TestSingularSpec mirrors PostgREST's SingularSpec: Accept:
// application/vnd.pgrst.object+json answers one row as an object and any
// other number of rows as 406 PGRST116, rolling back the write even when
// Prefer: tx=commit asks to keep it.
func TestSingularSpec(t *testing.T) {
	s := startSpecRollbackServer(t)
	singular := []string{"Accept", "application/vnd.pgrst.object+json"}
	with := func(h ...string) []string { return append(append([]string(nil), h...), singular...) }
	ctSingular := map[string]string{"Content-Type": "application/vnd.pgrst.object+json; charset=utf-8"}
	ctJSON := map[string]string{"Content-Type": "application/json; charset=utf-8"}
	rows := func(n string) string {
		return `{"details":"The result contains ` + n + ` rows","message":"Cannot coerce the result to a single JSON object","code":"PGRST116","hint":null}`
	}
	runSpecRequests(t, s, []specRequest{
		{name: "with GET request/fails for zero rows", path: "/items?id=gt.0&id=lt.0", header: singular,
			status: 406, body: rows("0")},
		{name: "with GET request/will select an existing object", path: "/items?id=eq.5", header: singular,
			body: `{"id":5}`, match: ctSingular},
		{name: "with GET request/will select an existing object without the +json suffix", path: "/items?id=eq.5",
			header: []string{"Accept", "application/vnd.pgrst.object"}, body: `{"id":5}`, match: ctSingular},
		{name: "with GET request/can combine multiple prefer values", path: "/items?id=eq.5", header: with("Prefer", "count=none"),
			body: `{"id":5}`, match: ctSingular},
		{name: "with GET request/can shape plurality singular object routes",
			path: "/projects_view?id=eq.1&select=id,name,clients(*),tasks(id,name)", header: singular, match: ctSingular,
			body: `{"id":1,"name":"Windows 7","clients":{"id":1,"name":"Microsoft"},"tasks":[{"id":1,"name":"Design w7"},{"id":2,"name":"Code w7"}]}`},

		{name: "when updating rows/works for one row with return=rep", method: "PATCH", path: "/addresses?id=eq.1",
			header: with("Prefer", "return=representation"), reqBody: `{"address":"B Street"}`,
			body: `{"id":1,"address":"B Street"}`, match: ctSingular},
		{name: "when updating rows/works for one row with return=minimal", method: "PATCH", path: "/addresses?id=eq.1",
			header: with("Prefer", "return=minimal"), reqBody: `{"address":"C Street"}`, status: 204,
			match: map[string]string{"Content-Type": "", "Preference-Applied": "return=minimal"}},
		{name: "when updating rows/raises an error for multiple rows", method: "PATCH", path: "/addresses",
			header: with("Prefer", "tx=commit"), reqBody: `{"address":"zzz"}`, status: 406, body: rows("4"), match: ctJSON},
		{name: "when updating rows/raises an error for multiple rows (the rows are not updated)", path: "/addresses?id=eq.1",
			body: `[{"id":1,"address":"address 1"}]`},
		{name: "when updating rows/raises an error for multiple rows with return=rep", method: "PATCH", path: "/addresses",
			header: with("Prefer", "tx=commit", "Prefer", "return=representation"), reqBody: `{"address":"zzz"}`,
			status: 406, body: rows("4"), match: ctJSON},
		{name: "when updating rows/raises an error for multiple rows with return=rep (the rows are not updated)", path: "/addresses?id=eq.1",
			body: `[{"id":1,"address":"address 1"}]`},
		{name: "when updating rows/raises an error for zero rows", method: "PATCH", path: "/items?id=gt.0&id=lt.0",
			header: singular, reqBody: `{"id":1}`, status: 406, body: rows("0"), match: ctJSON},
		{name: "when updating rows/raises an error for zero rows with return=rep", method: "PATCH", path: "/items?id=gt.0&id=lt.0",
			header: with("Prefer", "return=representation"), reqBody: `{"id":1}`, status: 406, body: rows("0"), match: ctJSON},

		{name: "when creating rows/works for one row with return=rep", method: "POST", path: "/addresses",
			header: with("Prefer", "return=representation"), reqBody: `[{"id":102,"address":"xxx"}]`,
			status: 201, body: `{"id":102,"address":"xxx"}`, match: ctSingular},
		{name: "when creating rows/works for one row with return=minimal", method: "POST", path: "/addresses",
			header: with("Prefer", "return=minimal"), reqBody: `[{"id":103,"address":"xxx"}]`, status: 201,
			match: map[string]string{"Content-Type": "", "Content-Range": "*/*", "Preference-Applied": "return=minimal"}},
		{name: "when creating rows/raises an error when attempting to create multiple entities", method: "POST", path: "/addresses",
			header: with("Prefer", "tx=commit"), reqBody: `[{"id":200,"address":"xxx"},{"id":201,"address":"yyy"}]`,
			status: 406, body: rows("2"), match: ctJSON},
		{name: "when creating rows/raises an error when attempting to create multiple entities (the rows do not exist)",
			path: "/addresses?id=eq.200", body: `[]`},
		{name: "when creating rows/raises an error when attempting to create multiple entities with return=rep", method: "POST", path: "/addresses",
			header: with("Prefer", "tx=commit", "Prefer", "return=representation"), reqBody: `[{"id":202,"address":"xxx"},{"id":203,"address":"yyy"}]`,
			status: 406, body: rows("2"), match: ctJSON},
		{name: "when creating rows/raises an error when attempting to create multiple entities with return=rep (the rows do not exist)",
			path: "/addresses?id=eq.202", body: `[]`},
		{name: "when creating rows/raises an error regardless of return=minimal", method: "POST", path: "/addresses",
			header: with("Prefer", "tx=commit", "Prefer", "return=minimal"), reqBody: `[{"id":204,"address":"xxx"},{"id":205,"address":"yyy"}]`,
			status: 406, body: rows("2"), match: ctJSON},
		{name: "when creating rows/raises an error regardless of return=minimal (the rows do not exist)",
			path: "/addresses?id=eq.204", body: `[]`},
		{name: "when creating rows/raises an error when creating zero entities", method: "POST", path: "/addresses",
			header: singular, reqBody: `[]`, status: 406, body: rows("0"), match: ctJSON},
		{name: "when creating rows/raises an error when creating zero entities with return=rep", method: "POST", path: "/addresses",
			header: with("Prefer", "return=representation"), reqBody: `[]`, status: 406, body: rows("0"), match: ctJSON},

		{name: "when deleting rows/works for one row with return=rep", method: "DELETE", path: "/items?id=eq.11",
			header: with("Prefer", "return=representation"), body: `{"id":11}`, match: ctSingular},
		{name: "when deleting rows/works for one row with return=minimal", method: "DELETE", path: "/items?id=eq.12",
			header: with("Prefer", "return=minimal"), status: 204},
		{name: "when deleting rows/raises an error when attempting to delete multiple entities", method: "DELETE", path: "/items?id=gt.0&id=lt.6",
			header: with("Prefer", "tx=commit"), status: 406, body: rows("5"), match: ctJSON},
		{name: "when deleting rows/raises an error when attempting to delete multiple entities (the rows still exist)",
			path: "/items?id=gt.0&id=lt.6&order=id", body: `[{"id":1},{"id":2},{"id":3},{"id":4},{"id":5}]`,
			match: map[string]string{"Content-Range": "0-4/*"}},
		{name: "when deleting rows/raises an error when attempting to delete multiple entities with return=rep", method: "DELETE",
			path: "/items?id=gt.5&id=lt.11", header: with("Prefer", "tx=commit", "Prefer", "return=representation"),
			status: 406, body: rows("5"), match: ctJSON},
		{name: "when deleting rows/raises an error when attempting to delete multiple entities with return=rep (the rows still exist)",
			path: "/items?id=gt.5&id=lt.11", body: `[{"id":6},{"id":7},{"id":8},{"id":9},{"id":10}]`,
			match: map[string]string{"Content-Range": "0-4/*"}},
		{name: "when deleting rows/raises an error when deleting zero entities", method: "DELETE", path: "/items?id=lt.0",
			header: singular, status: 406, body: rows("0"), match: ctJSON},
		{name: "when deleting rows/raises an error when deleting zero entities with return=rep", method: "DELETE", path: "/items?id=lt.0",
			header: with("Prefer", "return=representation"), status: 406, body: rows("0"), match: ctJSON},

		{name: "when calling a stored proc/fails for zero rows", method: "POST", path: "/rpc/getproject",
			header: singular, reqBody: `{"id":9999999}`, status: 406, body: rows("0"), match: ctJSON},
		{name: "when calling a stored proc/succeeds for scalar result", method: "POST", path: "/rpc/sayhello",
			header: singular, reqBody: `{"name":"world"}`, body: `"Hello, world"`, match: ctSingular},
		{name: "when calling a stored proc/returns a single object for json proc", method: "POST", path: "/rpc/getproject",
			header: singular, reqBody: `{"id":1}`, body: `{"id":1,"name":"Windows 7","client_id":1}`, match: ctSingular},
		{name: "when calling a stored proc/fails for multiple rows", method: "POST", path: "/rpc/getallprojects",
			header: singular, reqBody: `{}`, status: 406, body: rows("5"), match: ctJSON},
		{name: "when calling a stored proc/fails for multiple rows with rolled back changes (before)", method: "POST",
			path: "/rpc/getproject?select=id,name", reqBody: `{"id":1}`, body: `[{"id":1,"name":"Windows 7"}]`},
		{name: "when calling a stored proc/fails for multiple rows with rolled back changes", method: "POST", path: "/rpc/setprojects",
			header: with("Prefer", "tx=commit"), reqBody: `{"id_l":1,"id_h":2,"name":"changed"}`, status: 406, body: rows("2"), match: ctJSON},
		{name: "when calling a stored proc/fails for multiple rows with rolled back changes (after)", method: "POST",
			path: "/rpc/getproject?select=id,name", reqBody: `{"id":1}`, body: `[{"id":1,"name":"Windows 7"}]`},
	})
}
