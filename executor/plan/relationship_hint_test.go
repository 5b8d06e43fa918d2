package plan_test

import (
	"testing"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// filmsCache is PostgREST's example of its PGRST200 hint: films has
// directors, roles and actors (through roles); film has no relationship.
func filmsCache() *schemacache.Cache {
	table, pk, fk := tablesOf("api", "int"), apiPrimaryKey, apiForeignKey
	return schemacache.Build(&schemacache.Catalog{
		Schemas: []string{"api"},
		Relations: []*schemacache.Relation{
			table("films", "id", "director_id"), table("directors", "id"), table("actors", "id"),
			table("roles", "film_id", "actor_id"), table("film", "id"),
		},
		Keys: []schemacache.Key{pk("films", "id"), pk("directors", "id"), pk("actors", "id"), pk("roles", "film_id", "actor_id"), pk("film", "id")},
		ForeignKeys: []schemacache.ForeignKey{
			fk("films", "director_id", "directors"), fk("roles", "film_id", "films"), fk("roles", "actor_id", "actors"),
		},
	})
}

// TestRelationshipHint is PGRST200's hint as PostgREST gives it.
func TestRelationshipHint(t *testing.T) {
	cache := filmsCache()
	for _, c := range []struct{ target, parent, child, embedHint, hint string }{
		{"films?select=role(*)", "films", "role", "", "Perhaps you meant 'roles' instead of 'role'."},
		{"films?select=drector(*)", "films", "drector", "", "Perhaps you meant 'directors' instead of 'drector'."},
		// A name as far as this still gets a suggestion: the fuzzy set
		// keeps matches from a score of 0.33.
		{"films?select=dir(*)", "films", "dir", "", "Perhaps you meant 'directors' instead of 'dir'."},
		// The child exists: the embed hint is what failed.
		{"films?select=actors!nope(*)", "films", "actors", "nope", ""},
		{"films?select=noclosealternative(*)", "films", "noclosealternative", "", ""},
		// A parent without relationships gets the related table most like it.
		{"film?select=directors(*)", "film", "directors", "", "Perhaps you meant 'films' instead of 'film'."},
	} {
		t.Run(c.target, func(t *testing.T) {
			_, err := build(t, cache, c.target, plan.ReadOptions{})
			want := apierr.NoRelationship(c.parent, c.child, c.embedHint, "api", c.hint)
			if err == nil || err.Code != want.Code || err.Details != want.Details || err.Hint != want.Hint {
				t.Errorf("got %+v\nwant %+v", err, want)
			}
		})
	}
}

// TestRelationshipHintThroughInternalJunction: a table related to others
// only through a junction in a schema that is not exposed embeds nothing
// through it, yet counts as related for the hint, as in PostgREST: no
// table like it is suggested (EmbedDisambiguationSpec "doesn't work if the
// junction is only internal").
func TestRelationshipHintThroughInternalJunction(t *testing.T) {
	apiTable, privateTable := tablesOf("api", "int"), tablesOf("private", "int")
	junction := qualified("private", "junction")
	cache := schemacache.Build(&schemacache.Catalog{
		Schemas: []string{"api"},
		Relations: []*schemacache.Relation{
			apiTable("end_1", "id"), apiTable("end_2", "id"), privateTable("junction", "end_1_id", "end_2_id"),
			apiTable("send_1", "id"), apiTable("send_2", "id", "send_1_id"),
		},
		Keys: []schemacache.Key{
			apiPrimaryKey("end_1", "id"), apiPrimaryKey("end_2", "id"), primaryKey(junction, "end_1_id", "end_2_id"),
		},
		ForeignKeys: []schemacache.ForeignKey{
			foreignKey(junction, "end_1_id", apiName("end_1")), foreignKey(junction, "end_2_id", apiName("end_2")),
			apiForeignKey("send_2", "send_1_id", "send_1"),
		},
	})
	_, err := build(t, cache, "end_1?select=end_2(*)", plan.ReadOptions{})
	want := apierr.NoRelationship("end_1", "end_2", "", "api", "")
	if err == nil || err.Code != want.Code || err.Details != want.Details || err.Hint != want.Hint {
		t.Errorf("got %+v\nwant %+v", err, want)
	}
}
