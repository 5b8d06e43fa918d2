package read

import "testing"

// TestErrorSpec mirrors PostgREST v16.2's
// test/spec/Feature/Query/ErrorSpec.hs, its cases on PostgreSQL's and
// PostgREST's errors. The spec's Proxy-Status "PostgREST; error=<code>" is
// "pgrest; error=<code>" here (a deliberate difference, see the README);
// its JWT cases are tests/e2e's auth_messages_test.go.
func TestErrorSpec(t *testing.T) {
	s := startSpecServer(t, "db_tx_end rollback-allow-override")
	runSpecRequests(t, s, []specRequest{
		{name: "should return 500 for cardinality_violation", path: "/bad_subquery", status: 500,
			body: `{"code":"21000","details":null,"hint":null,"message":"more than one row returned by a subquery used as an expression"}`},
		{name: "should return 500 for statement too complex", method: "POST", path: "/infinite_inserts", reqBody: `{"id": 3, "name": "qwer"}`, status: 500,
			body:  `{"code":"54001","details":null,"hint":"Increase the configuration parameter \"max_stack_depth\" (currently 2048kB), after ensuring the platform's stack depth limit is adequate.","message":"stack depth limit exceeded"}`,
			match: map[string]string{"Content-Length": "217"}},
		{name: "works with ApiRequest error", path: "/invalid/nested/paths", status: 404,
			body:  `{"code":"PGRST125","details":null,"hint":null,"message":"Invalid path specified in request URL"}`,
			match: map[string]string{"Proxy-Status": "pgrest; error=PGRST125", "Content-Length": "96"}},
		{name: "works with SchemaCache error", path: "/non_existent_table", status: 404,
			body:  `{"code":"PGRST205","details":null,"hint":null,"message":"Could not find the table 'test.non_existent_table' in the schema cache"}`,
			match: map[string]string{"Proxy-Status": "pgrest; error=PGRST205", "Content-Length": "129"}},
		{name: "show hint when similarity score is at least 75%", path: "/projectx", status: 404,
			body:  `{"code":"PGRST205","details":null,"hint":"Perhaps you meant the table 'test.projects'","message":"Could not find the table 'test.projectx' in the schema cache"}`,
			match: map[string]string{"Content-Length": "160"}},
		{name: "show hint when similarity score is at least 75% (2)", path: "/projecxx", status: 404,
			body:  `{"code":"PGRST205","details":null,"hint":"Perhaps you meant the table 'test.projects'","message":"Could not find the table 'test.projecxx' in the schema cache"}`,
			match: map[string]string{"Content-Length": "160"}},
		{name: "don't show hint when similarity score is less than 75%", path: "/projxxxx", status: 404,
			body: `{"code":"PGRST205","details":null,"hint":null,"message":"Could not find the table 'test.projxxxx' in the schema cache"}`},
	})
}

// TestErrorSpecMinimalVerbosity mirrors ErrorSpec's "Test
// client-error-verbosity config": minimal leaves only code and message.
func TestErrorSpecMinimalVerbosity(t *testing.T) {
	s := startSpecServer(t, "client_error_verbosity minimal")
	runSpecRequests(t, s, []specRequest{
		{name: "hides details and hint when set to 'minimal'", path: "/itemsx", status: 404, raw: true,
			body:  `{"code":"PGRST205","message":"Could not find the table 'test.itemsx' in the schema cache"}`,
			match: map[string]string{"Content-Type": "application/json; charset=utf-8", "Proxy-Status": "pgrest; error=PGRST205"}},
	})
}
