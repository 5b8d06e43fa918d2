package read

import "testing"

// TestFilterLogicTrees combines filters with or= and and=, nested, negated
// and mixed with ordinary filters, with values that need quoting inside
// the tree.
func TestFilterLogicTrees(t *testing.T) {
	s := startServer(t)
	runIDsCases(t, s, []idsCase{
		{"or matches either condition", "/tasks?select=id&or=(priority.is.null,estimate_hours.gte.9.5)", []int{7, 14, 17, 21, 28, 34, 35, 37, 42, 49, 56}},
		{"and inside or", "/tasks?select=id&or=(and(project_id.eq.1,priority.eq.1),and(project_id.eq.2,priority.eq.1))", []int{4, 8, 12}},
		{"and at the top level is and-ed with the other filters", "/tasks?select=id&and=(priority.lte.2,status.eq.done)&project_id=lte.5", []int{8, 13}},
		{"or nested three deep", "/tasks?select=id&or=(id.eq.60,and(project_id.eq.1,or(priority.eq.1,and(status.eq.todo,tags.cs.{ops}))))", []int{4, 5, 60}},
		{"not.or negates the whole tree", "/tasks?select=id&project_id=eq.1&not.or=(priority.eq.1,status.eq.todo)", []int{1, 2, 3, 6}},
		{"not.and negates the whole tree", "/tasks?select=id&project_id=eq.1&not.and=(priority.gte.2,status.neq.done)", []int{3, 4}},
		{"not.and nested in or", "/tasks?select=id&project_id=eq.11&or=(id.eq.55,not.and(status.eq.todo,priority.is.null))", []int{55, 57, 58, 59, 60}},
		{"not.or nested in and nested in or", "/tasks?select=id&or=(and(project_id.eq.1,not.or(status.eq.done,status.eq.cancelled)),id.eq.59)", []int{1, 2, 5, 6, 59}},
		{"a negated operator inside a tree", "/tasks?select=id&project_id=eq.2&or=(priority.not.eq.1,priority.is.null)", []int{7, 9, 10, 11}},
		{"in with quoted values inside a tree", "/clients?select=id&or=(name.in.(%22Umbrella,%20Inc.%22,%22Stark%20Industries%20(Holdings)%22),country.is.null)", []int{4, 6, 9}},
		{"a double-quoted value with a comma and parentheses inside a tree", "/clients?select=id&or=(name.eq.%22Umbrella,%20Inc.%22,name.eq.%22The%20%5C%22Best%5C%22%20Co%22)", []int{4, 9}},
		{"like with wildcards inside a tree", "/tasks?select=id&or=(title.like.Fix*,title.ilike.*CSV*)", []int{55, 58}},
		{"a quantified operator inside a tree", "/tasks?select=id&or=(title.like(any).{Cleanup,cleanup},id.eq(any).{1,2})", []int{1, 2, 59, 60}},
		{"fts with a language inside a tree", "/articles?select=id&or=(search.fts(english).cats,search.plfts.reverse%20proxy)", []int{3, 5}},
		{"a JSON path inside a tree", "/projects?select=id&or=(settings->>color.eq.red,settings->notify->slack->>channel.eq.%23alpha)", []int{1, 2}},
		{"a range value inside a tree is quoted", "/reservations?select=id&or=(seats.adj.%22(4,8]%22,id.eq.10)", []int{1, 10}},
		{"an array value inside a tree", "/tasks?select=id&or=(tags.cs.{i18n},tags.ov.%7Bexport,ui%7D)", []int{55, 57, 58}},
		{"isdistinct inside a tree", "/films?select=id&and=(genre.isdistinct.crime,genre.isdistinct.drama)", []int{1, 2, 4, 6, 9}},
		{"or and and together", "/tasks?select=id&or=(project_id.eq.1,project_id.eq.2)&and=(priority.eq.1,status.neq.done)", []int{4, 12}},
		{"a logic key on an embedded level leaves the top level alone", "/projects?select=id,tasks(id)&tasks.or=(id.eq.1,id.eq.7)&id=lt.3", []int{1, 2}},
	})
}
