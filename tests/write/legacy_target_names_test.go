package write

import (
	"net/http"
	"testing"
)

// TestLegacyTargetNamesInWrites: the representation of a write embeds as
// a read does, so a filter naming an aliased embed by its relation works
// there too (url_use_legacy_target_names defaults to true), with
// PostgREST v16's deprecation Warning header.
func TestLegacyTargetNamesInWrites(t *testing.T) {
	s := startServer(t)
	reset(t)
	t.Cleanup(func() { reset(t) })

	res := s.Do(t, "PATCH", "/items?id=eq.3&select=id,category:categories(name)&categories.name=eq.nothing",
		`{"category_id":1}`, "Prefer", "return=representation")
	res.Expect(t, http.StatusOK, `[{"id":3,"category":null}]`, nil)
	want := `299 pgrest "Embedded resource was referenced by relation name even though it has an alias. ` +
		`This is deprecated and will stop working in a future release. ` +
		"Update `categories` to `category` in query string filters, orders or limits.\""
	if got := res.Header.Values("Warning"); len(got) != 1 || got[0] != want {
		t.Errorf("Warning %q, want one:\n%s", got, want)
	}
	expectRows(t, "select id, category_id from api.items where id = 3", `[{"id":3,"category_id":1}]`)

	res = s.Do(t, "PATCH", "/items?id=eq.3&select=id,category:categories(name)&category.name=eq.tools",
		`{"category_id":1}`, "Prefer", "return=representation")
	res.Expect(t, http.StatusOK, `[{"id":3,"category":{"name":"tools"}}]`, nil)
	if got := res.Header.Values("Warning"); len(got) != 0 {
		t.Errorf("Warning %q for the alias, want none", got)
	}
}
