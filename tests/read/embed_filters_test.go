package read

import (
	"net/http"
	"testing"
)

// TestEmbedJoinTypes compares !inner with !left (the default) on nullable
// foreign keys, childless parents and embedded filters.
func TestEmbedJoinTypes(t *testing.T) {
	s := startServer(t)
	runBodyCases(t, s, []bodyCase{
		{
			name: "!inner drops clients without projects",
			path: "/clients?select=id,projects!inner(id)&order=id&projects.order=id",
			want: `[
				{"id":1,"projects":[{"id":1},{"id":2}]},
				{"id":2,"projects":[{"id":3},{"id":4}]},
				{"id":3,"projects":[{"id":5},{"id":10}]},
				{"id":4,"projects":[{"id":6}]},
				{"id":5,"projects":[{"id":7}]},
				{"id":6,"projects":[{"id":8}]},
				{"id":7,"projects":[{"id":9}]}]`,
		},
		{
			name: "!left keeps clients without projects",
			path: "/clients?select=id,projects!left(id)&id=gte.7&order=id",
			want: `[{"id":7,"projects":[{"id":9}]},{"id":8,"projects":[]},{"id":9,"projects":[]}]`,
		},
		{
			name: "!inner drops tasks whose assignee is null",
			path: "/tasks?select=id,users!inner(username)&project_id=eq.1&order=id",
			want: `[
				{"id":1,"users":{"username":"alice"}},
				{"id":2,"users":{"username":"bob"}},
				{"id":3,"users":{"username":"carol"}},
				{"id":4,"users":{"username":"dave"}},
				{"id":6,"users":{"username":"frank"}}]`,
		},
		{
			name: "without !inner a task whose assignee is null keeps a null embed",
			path: "/tasks?select=id,users(username)&id=in.(4,5,6)&order=id",
			want: `[{"id":4,"users":{"username":"dave"}},{"id":5,"users":null},{"id":6,"users":{"username":"frank"}}]`,
		},
		{
			name: "!inner with an embedded filter keeps only parents with a matching child",
			path: "/projects?select=id,tasks!inner(id)&tasks.priority=eq.1&order=id&tasks.order=id",
			want: `[
				{"id":1,"tasks":[{"id":4}]},
				{"id":2,"tasks":[{"id":8},{"id":12}]},
				{"id":3,"tasks":[{"id":16}]},
				{"id":4,"tasks":[{"id":20},{"id":24}]},
				{"id":6,"tasks":[{"id":32},{"id":36}]},
				{"id":7,"tasks":[{"id":40}]},
				{"id":8,"tasks":[{"id":44},{"id":48}]},
				{"id":9,"tasks":[{"id":52}]},
				{"id":11,"tasks":[{"id":55}]}]`,
		},
		{
			name: "an embedded filter without !inner only empties the embed",
			path: "/projects?select=id,tasks(id)&tasks.priority=eq.1&id=in.(4,5,10)&order=id&tasks.order=id",
			want: `[{"id":4,"tasks":[{"id":20},{"id":24}]},{"id":5,"tasks":[]},{"id":10,"tasks":[]}]`,
		},
		{
			name: "!inner with a filter on a to-one embed keeps the matching rows",
			path: "/projects?select=id,clients!inner(name)&clients.country=eq.GB&order=id",
			want: `[{"id":6,"clients":{"name":"Umbrella, Inc."}}]`,
		},
		{
			name: "a filter on a to-one embed without !inner nulls the embed",
			path: "/projects?select=id,clients(name)&clients.country=eq.GB&id=in.(1,6,11)&order=id",
			want: `[{"id":1,"clients":null},{"id":6,"clients":{"name":"Umbrella, Inc."}},{"id":11,"clients":null}]`,
		},
		{
			name: "!inner on a many-to-many drops users in no project",
			path: "/users?select=username,projects!inner(code)&id=in.(9,10)&order=id",
			want: `[{"username":"ivan","projects":[{"code":"SG-KYC"}]}]`,
		},
		{
			name: "!inner with a filter on a many-to-many finds the films of one actor",
			path: "/films?select=title,actors!inner(name)&actors.name=eq.Morgan%20Freeman&order=id",
			want: `[
				{"title":"Se7en","actors":[{"name":"Morgan Freeman"}]},
				{"title":"Million Dollar Baby","actors":[{"name":"Morgan Freeman"}]}]`,
		},
	})
}

// TestEmbedNullChecks filters parents on whether an embed is empty.
func TestEmbedNullChecks(t *testing.T) {
	s := startServer(t)
	runBodyCases(t, s, []bodyCase{
		{
			name: "is.null on a to-many embed keeps the clients without projects",
			path: "/clients?select=id,projects(id)&projects=is.null&order=id",
			want: `[{"id":8,"projects":[]},{"id":9,"projects":[]}]`,
		},
		{
			name: "is.null on a to-one embed keeps the projects without a client",
			path: "/projects?select=id,clients(name)&clients=is.null&order=id",
			want: `[{"id":11,"clients":null},{"id":12,"clients":null}]`,
		},
		{
			name: "not.is.null with an embedded filter keeps the clients with an archived project",
			path: "/clients?select=id,projects(id)&projects.archived=is.true&projects=not.is.null&order=id&projects.order=id",
			want: `[{"id":3,"projects":[{"id":5},{"id":10}]}]`,
		},
		{
			name: "is.null with an embedded filter keeps the clients with no archived project",
			path: "/clients?select=id,projects(id)&projects.archived=is.true&projects=is.null&id=lte.4&order=id",
			want: `[{"id":1,"projects":[]},{"id":2,"projects":[]},{"id":4,"projects":[]}]`,
		},
		{
			name: "not.is.null on a to-one embed with a filter acts as an inner join",
			path: "/projects?select=id,clients(name)&clients.country=eq.FR&clients=not.is.null",
			want: `[{"id":9,"clients":{"name":"Société Générale"}}]`,
		},
		{
			name: "an embed selecting nothing filters with not.is.null and leaves no key",
			path: "/clients?select=id,projects()&projects.archived=is.true&projects=not.is.null&order=id",
			want: `[{"id":3}]`,
		},
		{
			name: "a to-one embed selecting nothing filters with is.null and leaves no key",
			path: "/projects?select=id,clients()&clients=is.null&order=id",
			want: `[{"id":11},{"id":12}]`,
		},
		{
			name: "an !inner embed selecting nothing filters by its children and leaves no key",
			path: "/films?select=title,actors!inner()&actors.name=eq.Morgan%20Freeman&order=id",
			want: `[{"title":"Se7en"},{"title":"Million Dollar Baby"}]`,
		},
		{
			name: "a null check on an embed works inside a logic tree",
			path: "/projects?select=id,clients(name)&or=(clients.is.null,id.eq.1)&order=id",
			want: `[{"id":1,"clients":{"name":"Acme Corp"}},{"id":11,"clients":null},{"id":12,"clients":null}]`,
		},
	})
}

// TestEmbedOrderAndRange orders and pages embedded levels, and orders
// parents by a to-one embed's column.
func TestEmbedOrderAndRange(t *testing.T) {
	s := startServer(t)
	runBodyCases(t, s, []bodyCase{
		{
			name: "an embedded order, limit and offset page each parent's children",
			path: "/projects?select=id,tasks(id)&id=in.(1,2)&order=id&tasks.order=id.desc&tasks.limit=2&tasks.offset=1",
			want: `[{"id":1,"tasks":[{"id":5},{"id":4}]},{"id":2,"tasks":[{"id":11},{"id":10}]}]`,
		},
		{
			name: "an embedded order takes several terms and nulls placement",
			path: "/projects?select=id,tasks(id,priority)&id=eq.2&tasks.order=priority.desc.nullslast,id",
			want: `[{"id":2,"tasks":[
				{"id":11,"priority":4},{"id":10,"priority":3},{"id":9,"priority":2},
				{"id":8,"priority":1},{"id":12,"priority":1},{"id":7,"priority":null}]}]`,
		},
		{
			name: "an embedded offset alone skips children",
			path: "/projects?select=id,tasks(id)&id=eq.11&tasks.order=id&tasks.offset=4",
			want: `[{"id":11,"tasks":[{"id":59},{"id":60}]}]`,
		},
		{
			name: "a limit two levels down applies per grandparent's child",
			path: "/clients?select=id,projects(id,tasks(id))&id=in.(1,2)&order=id&projects.order=id&projects.tasks.order=id&projects.tasks.limit=1",
			want: `[
				{"id":1,"projects":[{"id":1,"tasks":[{"id":1}]},{"id":2,"tasks":[{"id":7}]}]},
				{"id":2,"projects":[{"id":3,"tasks":[{"id":13}]},{"id":4,"tasks":[{"id":19}]}]}]`,
		},
		{
			name: "a many-to-many embed is ordered and limited",
			path: "/users?select=id,projects(id)&id=eq.1&projects.order=id.desc&projects.limit=2",
			want: `[{"id":1,"projects":[{"id":11},{"id":7}]}]`,
		},
		{
			name: "a many-to-many embed is ordered by text descending",
			path: "/films?select=id,actors(name)&id=eq.3&actors.order=name.desc",
			want: `[{"id":3,"actors":[{"name":"Natalie Portman"},{"name":"Jean Reno"},{"name":"Gary Oldman"}]}]`,
		},
		{
			name: "parents are ordered by a to-one embed's column, descending with nulls last",
			path: "/projects?select=id,clients(name)&order=clients(name).desc.nullslast,id&limit=3",
			want: `[
				{"id":6,"clients":{"name":"Umbrella, Inc."}},
				{"id":8,"clients":{"name":"Stark Industries (Holdings)"}},
				{"id":9,"clients":{"name":"Société Générale"}}]`,
		},
		{
			name: "descending order by a to-one embed's column puts nulls first",
			path: "/projects?select=id,clients(name)&order=clients(name).desc,id&limit=3",
			want: `[{"id":11,"clients":null},{"id":12,"clients":null},{"id":6,"clients":{"name":"Umbrella, Inc."}}]`,
		},
		{
			name: "parents are ordered by an aliased to-one embed's column",
			path: "/projects?select=id,client:clients(country)&order=client(country),id&id=lte.6",
			want: `[
				{"id":6,"client":{"country":"GB"}},
				{"id":1,"client":{"country":"US"}},
				{"id":2,"client":{"country":"US"}},
				{"id":3,"client":{"country":"US"}},
				{"id":4,"client":{"country":"US"}},
				{"id":5,"client":{"country":"US"}}]`,
		},
	})
}

// TestEmbedLogicTrees applies or/and/not trees to embedded levels.
func TestEmbedLogicTrees(t *testing.T) {
	s := startServer(t)
	runBodyCases(t, s, []bodyCase{
		{
			name: "an or on an embedded level filters its children",
			path: "/clients?select=id,projects(id)&projects.or=(archived.is.true,budget.gt.200000)&id=in.(1,3,6)&order=id&projects.order=id",
			want: `[{"id":1,"projects":[{"id":2}]},{"id":3,"projects":[{"id":5},{"id":10}]},{"id":6,"projects":[{"id":8}]}]`,
		},
		{
			name: "an and with a nested or on an embedded level filters its children",
			path: "/clients?select=id,projects(id)&projects.and=(archived.is.false,or(budget.is.null,budget.lt.50000))&id=in.(1,4,5)&order=id&projects.order=id",
			want: `[{"id":1,"projects":[]},{"id":4,"projects":[{"id":6}]},{"id":5,"projects":[{"id":7}]}]`,
		},
		{
			name: "a negated or on an embedded level keeps the other children",
			path: "/clients?select=id,projects(id)&projects.not.or=(archived.is.true,budget.gt.100000)&id=in.(1,2,3)&order=id&projects.order=id",
			want: `[{"id":1,"projects":[]},{"id":2,"projects":[{"id":3},{"id":4}]},{"id":3,"projects":[]}]`,
		},
		{
			name: "an or two levels down filters the grandchildren",
			path: "/clients?select=id,projects(id,tasks(id))&id=eq.2&projects.order=id&projects.tasks.or=(priority.eq.1,status.eq.done)&projects.tasks.order=id",
			want: `[{"id":2,"projects":[
				{"id":3,"tasks":[{"id":13},{"id":16},{"id":18}]},
				{"id":4,"tasks":[{"id":20},{"id":23},{"id":24}]}]}]`,
		},
		{
			name: "an or on an !inner embed drops the parents without a match",
			path: "/clients?select=id,projects!inner(id)&projects.or=(code.like.GLX*,code.like.INI*)&order=id&projects.order=id",
			want: `[{"id":2,"projects":[{"id":3},{"id":4}]},{"id":3,"projects":[{"id":5},{"id":10}]}]`,
		},
	})
}

// TestEmbedCounts checks that an exact count counts the parents that
// !inner and null checks keep, not every row of the table.
func TestEmbedCounts(t *testing.T) {
	s := startServer(t)
	cases := []struct {
		name, path, contentRange string
		status                   int
	}{
		{
			name:         "!inner leaves seven clients to count",
			path:         "/clients?select=id,projects!inner(id)&limit=2&order=id",
			contentRange: "0-1/7",
			status:       http.StatusPartialContent,
		},
		{
			name:         "!inner with an embedded filter leaves nine projects to count",
			path:         "/projects?select=id,tasks!inner(id)&tasks.priority=eq.1&limit=1&order=id",
			contentRange: "0-0/9",
			status:       http.StatusPartialContent,
		},
		{
			name:         "is.null on an embed leaves two clients to count",
			path:         "/clients?select=id,projects(id)&projects=is.null",
			contentRange: "0-1/2",
			status:       http.StatusOK,
		},
		{
			name:         "a left embed counts every client",
			path:         "/clients?select=id,projects(id)&limit=2&order=id",
			contentRange: "0-1/9",
			status:       http.StatusPartialContent,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := s.Get(t, c.path, "Prefer", "count=exact")
			res.ExpectStatus(t, c.status)
			if got := res.Header.Get("Content-Range"); got != c.contentRange {
				t.Errorf("Content-Range %q, want %q", got, c.contentRange)
			}
		})
	}
}
