package read

import (
	"net/http"
	"testing"
)

// TestRelatedQueriesSpecColumnNamedLikeEmbed mirrors RelatedQueriesSpec's
// "doesn't interfere filtering on column names that are the same as the
// relation name" and "... used for disambiguation": a filter other than
// is.null on the name of an embed filters the column of that name.
// (PostgREST's fixture has no rows here; ours has one each, which the
// last two cases find.)
func TestRelatedQueriesSpecColumnNamedLikeEmbed(t *testing.T) {
	s := startSpecServer(t)
	runSpecCases(t, s, []specCase{
		{name: "doesn't interfere filtering on column names that are the same as the relation name",
			path: "/tournaments?select=*,status(*)&status=eq.3", body: `[]`},
		{name: "doesn't interfere filtering on column names used for disambiguation",
			path: "/user_friend?select=*,user1(*)&user1=eq.a02fb934-3a4d-469b-a6b6-4fcd88b973cf", body: `[]`},
		{name: "the column named like the relation filters its rows",
			path: "/tournaments?select=id,status(*)&status=eq.1", body: `[{"id":1,"status":{"id":1}}]`},
		{name: "the column used for disambiguation filters its rows",
			path: "/user_friend?select=id,user1(username)&user1=eq.8ba3a5b3-1b1a-4c5d-9a6b-0f1e2d3c4b5a",
			body: `[{"id":1,"user1":{"username":"anne"}}]`},
		{name: "a filter on an embed's name that is no column is PostgreSQL's error",
			path: "/projects?select=id,clients(name)&clients=eq.3", status: http.StatusBadRequest,
			body: `{"code":"42703","message":"column projects.clients does not exist","details":null,` +
				`"hint":"Perhaps you meant to reference the column \"projects.client_id\"."}`},
	})
}
