package read

import "testing"

// TestNullsStripSpec mirrors PostgREST's NullsStripSpec: the nulls=stripped
// parameter of the array and object media types leaves out the keys whose
// values are null, even of columns selected by name, on reads and on the
// representation of writes.
func TestNullsStripSpec(t *testing.T) {
	s := startSpecRollbackServer(t)
	arrayStrip := []string{"Accept", "application/vnd.pgrst.array+json;nulls=stripped"}
	singularStrip := []string{"Accept", "application/vnd.pgrst.object+json;nulls=stripped"}
	ctArrayStrip := map[string]string{"Content-Type": "application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8"}
	ctSingularStrip := map[string]string{"Content-Type": "application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8"}
	represent := func(accept []string) []string {
		return append(append([]string(nil), accept...), "Prefer", "return=representation")
	}
	all := `[{"id":1,"name":"Referee Org","manager_id":1},{"id":2,"name":"Auditor Org","manager_id":2},` +
		`{"id":3,"name":"Acme","referee":1,"auditor":2,"manager_id":3},{"id":4,"name":"Umbrella","referee":1,"auditor":2,"manager_id":4},` +
		`{"id":5,"name":"Cyberdyne","referee":3,"auditor":4,"manager_id":5},{"id":6,"name":"Oscorp","referee":3,"auditor":4,"manager_id":6}]`
	newOrg := `{"id":7,"name":"John","referee":null,"auditor":null,"manager_id":6}`
	runSpecRequests(t, s, []specRequest{
		{name: "strip nulls from response/strips nulls when Accept: application/vnd.pgrst.array+json;nulls=stripped",
			path: "/organizations?select=*", header: arrayStrip, body: all, match: ctArrayStrip},
		{name: "strip nulls from response/strips nulls when Accept: application/vnd.pgrst.array+json;nulls=stripped (POST)",
			method: "POST", path: "/organizations?select=*", header: represent(arrayStrip), reqBody: newOrg,
			status: 201, body: `[{"id":7,"name":"John","manager_id":6}]`, match: ctArrayStrip},
		{name: "strip nulls from response/strips nulls when Accept: application/vnd.pgrst.array+json;nulls=stripped (PATCH)",
			method: "PATCH", path: "/organizations?id=eq.3&select=*", header: represent(arrayStrip), reqBody: `{"name":"John","referee":null}`,
			body: `[{"id":3,"name":"John","auditor":2,"manager_id":3}]`, match: ctArrayStrip},
		{name: "strip nulls from response/strips nulls when Accept: application/vnd.pgrst.array;nulls=stripped",
			path: "/organizations?select=*", header: []string{"Accept", "application/vnd.pgrst.array;nulls=stripped"}, body: all, match: ctArrayStrip},
		{name: "strip nulls from response/strips nulls when Accept: application/vnd.pgrst.object+json;nulls=stripped",
			path: "/organizations?limit=1", header: singularStrip, body: `{"id":1,"name":"Referee Org","manager_id":1}`, match: ctSingularStrip},
		{name: "strip nulls from response/throws error when Accept: application/vnd.pgrst.object+json;nulls=stripped and result not singular",
			path: "/organizations?select=*", header: singularStrip, status: 406,
			body:  `{"details":"The result contains 6 rows","message":"Cannot coerce the result to a single JSON object","code":"PGRST116","hint":null}`,
			match: map[string]string{"Content-Type": "application/json; charset=utf-8"}},
		{name: "strip nulls from response even if explicitly selected/strips nulls when Accept: application/vnd.pgrst.array+json;nulls=stripped",
			path: "/organizations?select=id,referee,auditor", header: arrayStrip, match: ctArrayStrip,
			body: `[{"id":1},{"id":2},{"id":3,"referee":1,"auditor":2},{"id":4,"referee":1,"auditor":2},{"id":5,"referee":3,"auditor":4},{"id":6,"referee":3,"auditor":4}]`},
		{name: "strip nulls from response even if explicitly selected/strips nulls when Accept: application/vnd.pgrst.array+json;nulls=stripped (POST)",
			method: "POST", path: "/organizations?select=id,referee,auditor", header: represent(arrayStrip), reqBody: newOrg,
			status: 201, body: `[{"id":7}]`, match: ctArrayStrip},
		{name: "strip nulls from response even if explicitly selected/strips nulls when Accept: application/vnd.pgrst.array+json;nulls=stripped (PATCH)",
			method: "PATCH", path: "/organizations?id=eq.3&select=id,name,referee,auditor", header: represent(arrayStrip),
			reqBody: `{"name":"John","referee":null}`, body: `[{"id":3,"name":"John","auditor":2}]`, match: ctArrayStrip},
		{name: "strip nulls from response even if explicitly selected/strips nulls when Accept: application/vnd.pgrst.object+json;nulls=stripped",
			path: "/organizations?select=id,referee,auditor&limit=1", header: singularStrip, body: `{"id":1}`, match: ctSingularStrip},
		{name: "doesn't strip nulls/doesn't strips nulls when Accept: application/vnd.pgrst.array+json",
			path: "/organizations?select=id,referee,auditor", header: []string{"Accept", "application/vnd.pgrst.array+json"},
			body: `[{"id":1,"referee":null,"auditor":null},{"id":2,"referee":null,"auditor":null},{"id":3,"referee":1,"auditor":2},` +
				`{"id":4,"referee":1,"auditor":2},{"id":5,"referee":3,"auditor":4},{"id":6,"referee":3,"auditor":4}]`,
			match: map[string]string{"Content-Type": "application/json; charset=utf-8"}},
		{name: "the writes were rolled back", path: "/organizations?id=in.(3,7)&select=id,name,referee",
			body: `[{"id":3,"name":"Acme","referee":1}]`},
	})
}
