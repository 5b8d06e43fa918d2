package rpc

import (
	"net/http"
	"testing"
)

// TestLegacyTargetNamesInCalls: a call's result embeds as a read does, so
// a filter naming an aliased embed by its relation works there too
// (url_use_legacy_target_names defaults to true), with PostgREST v16's
// deprecation Warning header; switched off, it is PGRST108.
func TestLegacyTargetNamesInCalls(t *testing.T) {
	const path = "/rpc/all_shelves?select=name,bs:books(title)&books.genre=eq.science&name=eq.study"
	t.Run("by default", func(t *testing.T) {
		s := startServer(t)
		res := s.Get(t, path)
		res.Expect(t, http.StatusOK, `[{"name":"study","bs":[{"title":"Cosmos"}]}]`, nil)
		want := `299 pgrest "Embedded resource was referenced by relation name even though it has an alias. ` +
			`This is deprecated and will stop working in a future release. ` +
			"Update `books` to `bs` in query string filters, orders or limits.\""
		if got := res.Header.Values("Warning"); len(got) != 1 || got[0] != want {
			t.Errorf("Warning %q, want one:\n%s", got, want)
		}
	})
	t.Run("switched off", func(t *testing.T) {
		s := startServer(t, "url_use_legacy_target_names false")
		res := s.Get(t, path)
		res.ExpectErrorFields(t, http.StatusBadRequest, "PGRST108", "'books' is not an embedded resource in this request",
			"Target names are not allowed in filters if they have an alias",
			"Change 'books' to 'bs' in filters, orders or limits.")
	})
}
