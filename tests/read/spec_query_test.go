package read

import "testing"

// TestQuerySpecEmptyEmbed mirrors QuerySpec's "empty embed": an embed
// that selects nothing, itself or through its own embeds at any depth,
// only filters (with !inner) and leaves no key in the rows.
func TestQuerySpecEmptyEmbed(t *testing.T) {
	s := startSpecServer(t)
	runSpecRequests(t, s, []specRequest{
		{name: "works on a many-to-one relationship", path: "/projects?select=id,name,clients()",
			body: `[{"id":1,"name":"Windows 7"},{"id":2,"name":"Windows 10"},{"id":3,"name":"IOS"},{"id":4,"name":"OSX"},{"id":5,"name":"Orphan"}]`},
		{name: "works on a many-to-one relationship with !inner", path: "/projects?select=id,name,clients!inner()&clients.id=eq.2",
			body: `[{"id":3,"name":"IOS"},{"id":4,"name":"OSX"}]`},
		{name: "works on a one-to-many relationship", path: "/clients?select=id,name,projects()",
			body: `[{"id":1,"name":"Microsoft"},{"id":2,"name":"Apple"}]`},
		{name: "works on a one-to-many relationship with !inner", path: "/clients?select=id,name,projects!inner()&projects.name=eq.IOS",
			body: `[{"id":2,"name":"Apple"}]`},
		{name: "works on a many-to-many relationship", path: "/users?select=*,tasks!inner()",
			body: `[{"id":1,"name":"Angela Martin"},{"id":2,"name":"Michael Scott"},{"id":3,"name":"Dwight Schrute"}]`},
		{name: "works on a many-to-many relationship filtered", path: "/users?select=*,tasks!inner()&tasks.id=eq.3",
			body: `[{"id":1,"name":"Angela Martin"}]`},
		{name: "works on nested relationships", path: "/users?select=*,users_tasks(tasks(projects()))",
			body: `[{"id":1,"name":"Angela Martin"},{"id":2,"name":"Michael Scott"},{"id":3,"name":"Dwight Schrute"}]`},
		{name: "works on nested relationships with !inner", path: "/users?select=*,users_tasks!inner(tasks!inner(projects()))&users_tasks.tasks.id=eq.3",
			body: `[{"id":1,"name":"Angela Martin"}]`},
		{name: "works on nested relationships side by side", path: "/users?select=*,tasks(projects(clients()),users_tasks())",
			body: `[{"id":1,"name":"Angela Martin"},{"id":2,"name":"Michael Scott"},{"id":3,"name":"Dwight Schrute"}]`},
		{name: "works on nested relationships beside a column", path: "/users?select=*,tasks!inner(projects(clients()),users_tasks(),name)&tasks.id=eq.3",
			body: `[{"id":1,"name":"Angela Martin","tasks":[{"name":"Design w10"}]}]`},
	})
}

// TestQuerySpecEmptyRootSelect mirrors QuerySpec's "empty root select":
// select= gives all columns, of a table and of a function's rows.
func TestQuerySpecEmptyRootSelect(t *testing.T) {
	s := startSpecServer(t)
	all := `[{"id":1,"name":"Windows 7","client_id":1},{"id":2,"name":"Windows 10","client_id":1},{"id":3,"name":"IOS","client_id":2},` +
		`{"id":4,"name":"OSX","client_id":2},{"id":5,"name":"Orphan","client_id":null}]`
	runSpecRequests(t, s, []specRequest{
		{name: "gives all columns", path: "/projects?select=", body: all},
		{name: "gives all columns of a function's rows", path: "/rpc/getallprojects?select=", body: all},
	})
}
