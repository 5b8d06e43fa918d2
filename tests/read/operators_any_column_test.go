package read

import "testing"

// TestJSONArrowsOnAnyColumn reads composites and arrays through JSON
// arrows, which PostgREST applies to to_jsonb(column): in select, in
// filters, in logic trees and in order.
func TestJSONArrowsOnAnyColumn(t *testing.T) {
	s := startReprServer(t)
	runReprCases(t, s, []reprCase{
		{"a composite's field and an array's element in select", "/shapes?select=id,x:center->x,n:numbers->0&id=lt.3&order=id", 200,
			`[{"id":1,"x":1,"n":10},{"id":2,"x":-4,"n":7}]`},
		{"the last key names the value", "/shapes?select=center->>z&id=eq.2", 200, `[{"z":"6"}]`},
		{"an index past the end is null", "/shapes?select=numbers->5&id=eq.1", 200, `[{"numbers":null}]`},
	})
	runIDsCases(t, s, []idsCase{
		{"->> of a composite's field", "/shapes?select=id&center->>y=eq.5", []int{2}},
		{"-> of an array element compares as JSON", "/shapes?select=id&numbers->0=gt.8", []int{1}},
		{"->> of an array element", "/shapes?select=id&numbers->>0=eq.10", []int{1}},
		{"is null on a composite's field", "/shapes?select=id&center->>x=is.null", []int{3}},
		{"in an or= tree", "/shapes?select=id&or=(center->>x.eq.1,numbers->>0.eq.7)", []int{1, 2}},
		{"isdistinct on an array element", "/shapes?select=id&numbers->>0=isdistinct.10", []int{2, 3}},
	})
	runOrderedIDsCases(t, s, []idsCase{
		{"order by a composite's field", "/shapes?select=id&order=center->x.desc.nullslast", []int{1, 2, 3}},
		{"order by an array element", "/shapes?select=id&order=numbers->0.asc.nullsfirst", []int{3, 2, 1}},
	})
}

// TestFullTextSearchOnAnyColumn runs the four full-text operators on text,
// json, jsonb, JSON paths, tsvector and a tsvector domain, with and
// without a language, negated and inside logic trees.
func TestFullTextSearchOnAnyColumn(t *testing.T) {
	s := startReprServer(t)
	runIDsCases(t, s, []idsCase{
		{"fts on text", "/shapes?select=id&body=fts.quick", []int{2}},
		{"plfts with a language on text", "/shapes?select=id&body=plfts(english).lazy%20dogs", []int{1}},
		{"phfts on text", "/shapes?select=id&body=phfts(english).quick%20cat", []int{2}},
		{"wfts on text", "/shapes?select=id&body=wfts(english).quick%20-cat", []int{}},
		{"fts on json searches its strings", "/shapes?select=id&doc=fts(english).fox", []int{1}},
		{"wfts on jsonb", "/shapes?select=id&docb=wfts(english).sleeping", []int{2}},
		{"fts on jsonb without a language", "/shapes?select=id&docb=fts.slow", []int{2}},
		{"fts on a JSON path", "/shapes?select=id&doc->>title=fts(english).quick", []int{1}},
		{"fts on a tsvector", "/shapes?select=id&search=fts(english).fox", []int{1}},
		{"plfts on a tsvector domain", "/shapes?select=id&search2=plfts(english).turtles", []int{2}},
		{"not.fts", "/shapes?select=id&body=not.fts.quick", []int{1}},
		{"fts in an or= tree", "/shapes?select=id&or=(body.fts.lazy,doc.fts(english).turtle)", []int{1, 2}},
		{"fts on an embedded resource", "/todo_pairs?select=id,todos!todo_pairs_first_item_id_fkey!inner(id)&todos.name=fts(english).essays", []int{1}},
	})
}

// TestOperatorsEverywhere runs isdistinct, match and imatch and the any
// and all quantifiers on columns, JSON paths, embedded resources and in
// logic trees.
func TestOperatorsEverywhere(t *testing.T) {
	s := startReprServer(t)
	runIDsCases(t, s, []idsCase{
		{"isdistinct", "/shapes?select=id&name=isdistinct.cube", []int{2, 3}},
		{"not.isdistinct", "/shapes?select=id&name=not.isdistinct.cube", []int{1}},
		{"isdistinct in an and= tree", "/shapes?select=id&and=(name.isdistinct.cube,id.lt.3)", []int{2}},
		{"match", "/shapes?select=id&name=match.%5Ec", []int{1, 3}},
		{"imatch", "/shapes?select=id&name=imatch.%5EC", []int{1, 3}},
		{"match on a JSON path", "/shapes?select=id&doc->>title=imatch.FOX", []int{1}},
		{"match(any)", "/shapes?select=id&name=match(any).{%5Es,e$}", []int{1, 2, 3}},
		{"match(all)", "/shapes?select=id&name=match(all).{%5Ec,e$}", []int{1, 3}},
		{"imatch(any)", "/shapes?select=id&name=imatch(any).{%5ESP,UBE}", []int{1, 2}},
		{"like(all)", "/shapes?select=id&name=like(all).{c*,*e}", []int{1, 3}},
		{"ilike(any)", "/shapes?select=id&name=ilike(any).{S*,*NE}", []int{2, 3}},
		{"eq(any)", "/shapes?select=id&name=eq(any).{cube,cone}", []int{1, 3}},
		{"gt(all)", "/shapes?select=id&id=gt(all).{1,2}", []int{3}},
		{"not.eq(any)", "/shapes?select=id&name=not.eq(any).{cube,cone}", []int{2}},
		{"like(any) on a JSON path", "/shapes?select=id&doc->>title=like(any).{*fox*,*turtle*}", []int{1, 2}},
		{"like(any) in an or= tree", "/shapes?select=id&or=(name.like(any).{c*},id.eq.2)", []int{1, 2, 3}},
		{"imatch(all) in a nested tree", "/shapes?select=id&or=(and(name.imatch(all).{C,E},id.gt.1),id.eq.2)", []int{2, 3}},
		{"like(any) on an embedded resource", "/todo_pairs?select=id,todos!todo_pairs_first_item_id_fkey!inner(name)&todos.name=like(any).{Rep*,Ess*}", []int{1, 2}},
		{"match on an embedded resource", "/todo_pairs?select=id,todos!todo_pairs_first_item_id_fkey!inner(name)&todos.name=match.%5ER", []int{2}},
		{"isdistinct in an embedded or= tree", "/todo_pairs?select=id,todos!todo_pairs_first_item_id_fkey!inner(name)&todos.or=(name.isdistinct.Essay)", []int{2}},
	})
}
