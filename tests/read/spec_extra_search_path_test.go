package read

import "testing"

// TestExtraSearchPathSpec mirrors PostgREST v16.2's
// test/spec/Feature/ExtraSearchPathSpec.hs: with db_extra_search_path
// public, extensions and a schema named with specials, filters find
// ltree's operators (in public) and isn's (in extensions), functions
// find theirs, and relationships are found through views in the extra
// search path. A comment gives each request's line.
func TestExtraSearchPathSpec(t *testing.T) {
	s := startSpecServer(t, "db_extra_search_path public extensions `EXTRA \"@/\\#~_-`", "db_tx_end rollback-allow-override")
	runSpecRequests(t, s, []specRequest{
		// L17
		{name: `finds the ltree <@ operator on the public schema`, path: `/ltree_sample?path=cd.Top.Science.Astronomy`,
			body: `[{"path":"Top.Science.Astronomy"},{"path":"Top.Science.Astronomy.Astrophysics"},{"path":"Top.Science.Astronomy.Cosmology"}]`, match: specJSON},
		// L25
		{name: `finds the ltree ~ operator on the public schema`, path: `/ltree_sample?path=match.*.Science`,
			body: `[{"path": "Top.Science"}]`, match: specJSON},
		// L30
		{name: `finds the ltree ~ operator on the public schema (2)`, path: `/ltree_sample?path=match.*.Astronomy.*`,
			body: `[{"path": "Top.Science.Astronomy"},{"path": "Top.Science.Astronomy.Astrophysics"},{"path": "Top.Science.Astronomy.Cosmology"},{"path": "Top.Collections.Pictures.Astronomy"},{"path": "Top.Collections.Pictures.Astronomy.Stars"},{"path": "Top.Collections.Pictures.Astronomy.Galaxies"},{"path": "Top.Collections.Pictures.Astronomy.Astronauts"}]`, match: specJSON},
		// L41
		{name: `finds the ltree ~ operator on the public schema (3)`, path: `/ltree_sample?path=match.*.Collections.*{1,2}`,
			body: `[{"path": "Top.Collections.Pictures"},{"path": "Top.Collections.Pictures.Astronomy"}]`, match: specJSON},
		// L48
		{name: `finds the ltree nlevel function on the public schema, used through a computed column`, path: `/ltree_sample?select=number_of_labels&path=eq.Top.Science`,
			body: `[{"number_of_labels":2}]`, match: specJSON},
		// L53
		{name: `finds the isn = operator on the extensions schema`, path: `/isn_sample?id=eq.978-0-393-04002-9&select=name`,
			body: `[{"name":"Mathematics: From the Birth of Numbers"}]`, match: specJSON},
		// L58
		{name: `finds the isn is_valid function on the extensions schema`, path: `/rpc/is_valid_isbn?input=978-0-393-04002-9`,
			body: `true`, match: specJSON},
		// L63
		{name: `finds a function on a schema with uppercase and special characters in its name`, path: `/rpc/special_extended_schema?val=value`,
			body: `"value"`, match: specJSON},
		// L68
		{name: `can detect fk relations through multiple views recursively when middle views are in extra search path`, path: `/consumers_extra_view?select=*,orders_view(*)`,
			anyBody: true},
	})
}
