package read

import (
	"net/http"
	"testing"
)

// TestEmbedDisambiguationSpecInternalJunction mirrors EmbedDisambiguationSpec's
// "m2m embed when there's a junction in an internal schema": an exposed
// view of the junction embeds; a junction only in an internal schema does
// not, and the error has no hint (the tables relate, through that
// junction, so PostgREST suggests no other table), also when the junction
// has an exposed homonym.
func TestEmbedDisambiguationSpecInternalJunction(t *testing.T) {
	s := startSpecServer(t)
	noRelationship := func(parent, child string) string {
		return `{"hint":null,"message":"Could not find a relationship between '` + parent + `' and '` + child + `' in the schema cache",` +
			`"code":"PGRST200","details":"Searched for a foreign key relationship between '` + parent + `' and '` + child +
			`' in the schema 'test', but no matches were found."}`
	}
	runSpecRequests(t, s, []specRequest{
		{name: "works with no ambiguity when there's an exposed view of the junction", path: "/screens?select=labels(name)",
			body: `[{"labels":[{"name":"fruit"}]},{"labels":[{"name":"vehicles"}]},{"labels":[{"name":"vehicles"},{"name":"fruit"}]}]`},
		{name: "works with no ambiguity when there's an exposed view of the junction, with a star", path: "/actors?select=*,films(*)",
			body: `[{"id":1,"name":"john","films":[{"id":12,"title":"douze commandements"}]},` +
				`{"id":2,"name":"mary","films":[{"id":2001,"title":"odyssée de l'espace"}]}]`},
		{name: "doesn't work if the junction is only internal", path: "/end_1?select=end_2(*)",
			status: http.StatusBadRequest, body: noRelationship("end_1", "end_2")},
		{name: "shouldn't try to embed if the private junction has an exposed homonym", path: "/schauspieler?select=filme(*)",
			status: http.StatusBadRequest, body: noRelationship("schauspieler", "filme")},
	})
}
