package read

import "testing"

// TestMaxRowsInEmbeds: db_max_rows bounds every embedded array too, as
// PostgREST applies max-rows to each level of a read.
func TestMaxRowsInEmbeds(t *testing.T) {
	s := startServer(t, "db_max_rows 3")
	runBodyCases(t, s, []bodyCase{
		{
			name: "a to-many embed holds at most db_max_rows rows",
			path: "/projects?select=id,tasks(id)&id=eq.1&tasks.order=id",
			want: `[{"id":1,"tasks":[{"id":1},{"id":2},{"id":3}]}]`,
		},
		{
			name: "the cap counts from the embed's offset",
			path: "/projects?select=id,tasks(id)&id=eq.1&tasks.order=id&tasks.offset=2",
			want: `[{"id":1,"tasks":[{"id":3},{"id":4},{"id":5}]}]`,
		},
		{
			name: "a smaller embed limit is kept",
			path: "/projects?select=id,tasks(id)&id=eq.1&tasks.order=id&tasks.limit=2",
			want: `[{"id":1,"tasks":[{"id":1},{"id":2}]}]`,
		},
		{
			name: "a larger embed limit is capped",
			path: "/projects?select=id,tasks(id)&id=eq.1&tasks.order=id&tasks.limit=5",
			want: `[{"id":1,"tasks":[{"id":1},{"id":2},{"id":3}]}]`,
		},
		{
			name: "a to-many spread's arrays are capped alike",
			path: "/projects?select=id,...tasks(task:id)&id=eq.1&tasks.order=id",
			want: `[{"id":1,"task":[1,2,3]}]`,
		},
		{
			name: "nested embeds are capped at each level, and so is the root",
			path: "/clients?select=id,projects(id,tasks(id))&order=id&projects.order=id&projects.tasks.order=id&id=lte.4",
			want: `[
				{"id":1,"projects":[{"id":1,"tasks":[{"id":1},{"id":2},{"id":3}]},{"id":2,"tasks":[{"id":7},{"id":8},{"id":9}]}]},
				{"id":2,"projects":[{"id":3,"tasks":[{"id":13},{"id":14},{"id":15}]},{"id":4,"tasks":[{"id":19},{"id":20},{"id":21}]}]},
				{"id":3,"projects":[{"id":5,"tasks":[{"id":25},{"id":26},{"id":27}]},{"id":10,"tasks":[]}]}]`,
		},
	})
}
