package read

import "testing"

// TestComputedRelsSpec mirrors ComputedRelsSpec: relationships defined by
// functions of a row, embedded on tables and on a function's rows.
func TestComputedRelsSpec(t *testing.T) {
	s := startSpecServer(t)
	designers := `[{"name":"Civilization I","designer":{"name":"Sid Meier"}},{"name":"Civilization II","designer":{"name":"Sid Meier"}},` +
		`{"name":"Final Fantasy I","designer":{"name":"Hironobu Sakaguchi"}},{"name":"Final Fantasy II","designer":{"name":"Hironobu Sakaguchi"}}]`
	videogames := `[{"name":"Sid Meier","videogames":[{"name":"Civilization I"},{"name":"Civilization II"}]},` +
		`{"name":"Hironobu Sakaguchi","videogames":[{"name":"Final Fantasy I"},{"name":"Final Fantasy II"}]}]`
	json := map[string]string{"Content-Type": "application/json; charset=utf-8"}
	runSpecRequests(t, s, []specRequest{
		{name: "can define a many-to-one relationship with SETOF and ROWS 1 and embed",
			path: "/videogames?select=name,designer:computed_designers(name)", body: designers, match: json},
		{name: "can define a many-to-one relationship without SETOF and embed",
			path: "/videogames?select=name,designer:computed_designers_noset(name)", body: designers, match: json},
		{name: "can define a one-to-many relationship and embed",
			path: "/designers?select=name,videogames:computed_videogames(name)", body: videogames, match: json},
		{name: "works with !inner and count=exact (to-many)",
			path:   "/designers?select=name,videogames:computed_videogames!inner(name)&videogames.name=eq.Civilization%20I",
			header: []string{"Prefer", "count=exact"},
			body:   `[{"name":"Sid Meier","videogames":[{"name":"Civilization I"}]}]`, match: map[string]string{"Content-Range": "0-0/1"}},
		{name: "works with !inner and count=exact (to-one)",
			path:   "/videogames?select=name,designer:computed_designers!inner(name)&designer.name=like.*Hironobu*",
			header: []string{"Prefer", "count=exact"},
			body:   `[{"name":"Final Fantasy I","designer":{"name":"Hironobu Sakaguchi"}},{"name":"Final Fantasy II","designer":{"name":"Hironobu Sakaguchi"}}]`,
			match:  map[string]string{"Content-Range": "0-1/2"}},
		{name: "works with !inner and count=exact (to-one without SETOF)",
			path:   "/videogames?select=name,designer:computed_designers_noset!inner(name)&designer.name=like.*Hironobu*",
			header: []string{"Prefer", "count=exact"},
			body:   `[{"name":"Final Fantasy I","designer":{"name":"Hironobu Sakaguchi"}},{"name":"Final Fantasy II","designer":{"name":"Hironobu Sakaguchi"}}]`,
			match:  map[string]string{"Content-Range": "0-1/2"}},
		{name: "works with rpc (to-one)",
			path: "/rpc/getallvideogames?select=name,designer:computed_designers(name)", body: designers, match: json},
		{name: "works with rpc (to-many)",
			path: "/rpc/getalldesigners?select=name,videogames:computed_videogames(name)", body: videogames, match: json},
		{name: "applies data representations to response",
			path: "/videogames?select=name,designer:computed_designers(*)&id=eq.1",
			body: `[{"name":"Civilization I","designer":{"id":1,"name":"Sid Meier"}}]`, match: json},
		{name: "can be defined using overloaded functions: tables (items)",
			path: "/items?select=*,computed_rel_overload(*)&limit=1",
			body: `[{"id":1,"computed_rel_overload":[{"id":1}]}]`, match: json},
		{name: "can be defined using overloaded functions: tables (items2)",
			path: "/items2?select=*,computed_rel_overload(*)&limit=1",
			body: `[{"id":1,"computed_rel_overload":[{"id":1},{"id":2}]}]`, match: json},
		// The function's rows are records until cast to the returned
		// table's type: without the cast PostgreSQL cannot choose the
		// overload (42725).
		{name: "can be defined using overloaded functions: rpc (search)",
			path: "/rpc/search?id=1&select=*,computed_rel_overload(*)",
			body: `[{"id":1,"computed_rel_overload":[{"id":1}]}]`, match: json},
		{name: "can be defined using overloaded functions: rpc (search2)",
			path: "/rpc/search2?id=1&select=*,computed_rel_overload(*)",
			body: `[{"id":1,"computed_rel_overload":[{"id":1},{"id":2}]}]`, match: json},
	})
}
