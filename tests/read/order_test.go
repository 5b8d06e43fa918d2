package read

import (
	"net/http"
	"testing"
)

// TestOrder sorts with order=: directions, nulls first and last, several
// keys, enums, JSON paths, computed columns and a to-one embed.
func TestOrder(t *testing.T) {
	s := startServer(t)

	t.Run("by columns", func(t *testing.T) {
		runOrderedIDsCases(t, s, []idsCase{
			{"ascending is the default and puts NULLs last", "/films?select=id&order=released_year,id", []int{2, 3, 5, 1, 4, 8, 7, 6, 9}},
			{"asc is ascending with NULLs last", "/films?select=id&order=released_year.asc,id", []int{2, 3, 5, 1, 4, 8, 7, 6, 9}},
			{"desc puts NULLs first", "/films?select=id&order=released_year.desc,id", []int{9, 6, 7, 8, 1, 4, 5, 3, 2}},
			{"desc.nullslast puts NULLs last", "/films?select=id&order=released_year.desc.nullslast,id", []int{6, 7, 8, 1, 4, 5, 3, 2, 9}},
			{"asc.nullsfirst puts NULLs first", "/films?select=id&order=released_year.asc.nullsfirst,id", []int{9, 2, 3, 5, 1, 4, 8, 7, 6}},
			{"nullsfirst alone is ascending", "/films?select=id&order=released_year.nullsfirst,id", []int{9, 2, 3, 5, 1, 4, 8, 7, 6}},
			{"the second key breaks ties of the first", "/tasks?select=id&project_id=eq.2&order=priority.desc.nullslast,id.desc", []int{11, 10, 9, 12, 8, 7}},
			{"three keys", "/tasks?select=id&project_id=in.(1,2)&order=status.desc,priority.asc.nullsfirst,id.desc", []int{4, 9, 8, 3, 7, 12, 2, 1, 6, 11, 5, 10}},
			{"an enum sorts in declaration order", "/tasks?select=id&project_id=eq.1&order=status,id", []int{5, 1, 6, 2, 3, 4}},
			{"text sorts by the database's collation", "/users?select=id&order=%22Display%20Name%22.desc.nullslast", []int{9, 8, 7, 6, 5, 4, 3, 2, 1, 10}},
			{"a date with NULLs first", "/tasks?select=id&project_id=eq.11&order=due_on.nullsfirst,id", []int{56, 59, 60, 58, 55, 57}},
			{"order applies before limit", "/tasks?select=id&order=estimate_hours.desc.nullslast,id&limit=4", []int{17, 37, 14, 34}},
		})
	})

	t.Run("by JSON paths, computed columns and embeds", func(t *testing.T) {
		runOrderedIDsCases(t, s, []idsCase{
			{"a ->> path sorts as text", "/projects?select=id&order=settings->>color.desc,id", []int{4, 5, 7, 8, 10, 12, 1, 3, 6, 11, 2, 9}},
			{"a -> path sorts as jsonb", "/projects?select=id&order=settings->public.desc.nullslast,id", []int{1, 12, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
			{"a ->> path into a json column", "/events?select=id&id=in.(2,15)&order=payload->>x", []int{15, 2}},
			{"a deep path with an index", "/projects?select=id&settings=not.is.null&order=settings->labels->>0.nullslast,id", []int{2, 6, 1, 3, 5, 7, 8, 9, 11, 12}},
			{"a computed column", "/employees?select=id&id=lt.5&order=full_name.desc", []int{4, 3, 2, 1}},
			{"a to-one embed's column", "/tasks?select=id,projects(name)&order=projects(name).desc,id&limit=4", []int{31, 32, 33, 34}},
		})
	})

	t.Run("an embedded order sorts the embedded rows", func(t *testing.T) {
		res := s.Get(t, "/projects?select=id,tasks(id)&id=eq.1&tasks.order=priority.desc,id")
		res.ExpectStatus(t, http.StatusOK)
		expectCompactBody(t, res.Body, `[{"id":1,"tasks":[{"id":3},{"id":2},{"id":6},{"id":1},{"id":5},{"id":4}]}]`)
	})

	t.Run("errors", func(t *testing.T) {
		runFailures(t, s, []failure{
			{name: "an unknown column is 42703", path: "/tasks?select=id&order=nope",
				status: http.StatusBadRequest, code: "42703", message: "column tasks.nope does not exist"},
			{name: "a related order without the embed is PGRST108", path: "/tasks?select=id&order=projects(name)",
				status: http.StatusBadRequest, code: "PGRST108", message: "'projects' is not an embedded resource in this request",
				hint: "Verify that 'projects' is included in the 'select' query parameter."},
		})
	})
}
