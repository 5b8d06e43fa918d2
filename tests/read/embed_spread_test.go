package read

import "testing"

// TestEmbedSpread merges to-one embeds into their parent with "...".
func TestEmbedSpread(t *testing.T) {
	s := startServer(t)
	runBodyCases(t, s, []bodyCase{
		{
			name: "a many-to-one spread lifts the columns, with aliases, and nulls them without a match",
			path: "/projects?select=id,...clients(client_name:name,country)&id=in.(1,11)&order=id",
			want: `[
				{"id":1,"client_name":"Acme Corp","country":"US"},
				{"id":11,"client_name":null,"country":null}]`,
		},
		{
			name: "a one-to-one spread lifts the profile's columns",
			path: "/users?select=username,...user_profiles(timezone,website)&id=in.(2,10)&order=id",
			want: `[
				{"username":"bob","timezone":"America/New_York","website":null},
				{"username":"judy","timezone":null,"website":null}]`,
		},
		{
			name: "a spread of * lifts every column of the composite-key parent",
			path: "/invoice_lines?select=id,...invoices(*)&id=eq.1",
			want: `[{"id":1,"year":2023,"number":1,"client_id":1,"issued_on":"2023-03-15",
				"currency":"EUR","total":7840.50,"paid":true,"notes":null}]`,
		},
		{
			name: "a spread of a rows 1 computed relationship lifts its columns",
			path: "/projects?select=id,...project_lead(lead:username)&id=in.(1,12)&order=id",
			want: `[{"id":1,"lead":"alice"},{"id":12,"lead":null}]`,
		},
		{
			name: "an embed inside a spread keeps its key in the parent",
			path: "/tasks?select=id,...projects(project:name,clients(name))&id=in.(1,55)&order=id",
			want: `[
				{"id":1,"project":"Acme website relaunch","clients":{"name":"Acme Corp"}},
				{"id":55,"project":"Internal tooling","clients":null}]`,
		},
		{
			name: "a spread inside a spread lifts the grandparent's columns too",
			path: "/tasks?select=id,...projects(project:name,...clients(client:name))&id=in.(1,55)&order=id",
			want: `[
				{"id":1,"project":"Acme website relaunch","client":"Acme Corp"},
				{"id":55,"project":"Internal tooling","client":null}]`,
		},
		{
			name: "a spread selecting nothing adds nothing",
			path: "/projects?select=id,...clients()&id=eq.1",
			want: `[{"id":1}]`,
		},
		{
			name: "a spread inside an embed lifts the columns into the embedded object",
			path: "/comments?select=id,tasks(title,...projects(code))&id=eq.1",
			want: `[{"id":1,"tasks":{"title":"Design login","code":"ACME-WEB"}}]`,
		},
		{
			name: "a filter on a spread embed nulls its columns",
			path: "/projects?select=id,...clients(name)&clients.country=eq.FR&id=in.(1,9)&order=id",
			want: `[{"id":1,"name":null},{"id":9,"name":"Société Générale"}]`,
		},
		{
			name: "an !inner spread with a filter keeps the matching rows only",
			path: "/projects?select=id,...clients!inner(name)&clients.country=eq.FR",
			want: `[{"id":9,"name":"Société Générale"}]`,
		},
	})
}
