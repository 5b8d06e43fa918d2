package read

import (
	"net/http"
	"testing"
)

// TestRelatedQueriesSpecNullEmbedFilters mirrors RelatedQueriesSpec's
// "related conditions through null operator on embed": is.null and
// not.is.null on an embed's name keep the rows without or with it, and
// counts count those rows. A planned count is the planner's estimate of
// the count query; an estimated one without db_max_rows is the larger of
// that estimate and the exact count, so both say 5 where 4 rows have a
// client (PostgREST builds the same count query, so PostgreSQL estimates
// alike).
func TestRelatedQueriesSpecNullEmbedFilters(t *testing.T) {
	s := startSpecServer(t)
	withClient := `[{"name":"Windows 7","clients":{"name":"Microsoft"}},{"name":"Windows 10","clients":{"name":"Microsoft"}},` +
		`{"name":"IOS","clients":{"name":"Apple"}},{"name":"OSX","clients":{"name":"Apple"}}]`
	orphan := `[{"name":"Orphan"}]`
	orAcross := "/client?select=*,clientinfo(),contact()&clientinfo.other=ilike.*main*&contact.name=ilike.*tabby*" +
		"&or=(clientinfo.not.is.null,contact.not.is.null)"
	walmartTarget := `[{"id":1,"name":"Walmart"},{"id":2,"name":"Target"}]`
	runSpecRequests(t, s, []specRequest{
		{name: "works on a many-to-one relationship", path: "/projects?select=name,clients()&clients=not.is.null",
			body: `[{"name":"Windows 7"},{"name":"Windows 10"},{"name":"IOS"},{"name":"OSX"}]`},
		{name: "works on a many-to-one relationship with is.null", path: "/projects?select=name,clients()&clients=is.null",
			body: orphan},
		{name: "works on a many-to-many relationship", path: "/users?select=name,tasks()&tasks.id=eq.1&tasks=not.is.null",
			body: `[{"name":"Angela Martin"},{"name":"Dwight Schrute"}]`},
		{name: "works on a many-to-many relationship with is.null", path: "/users?select=name,tasks()&tasks.id=eq.1&tasks=is.null",
			body: `[{"name":"Michael Scott"}]`},
		{name: "can do an or across embeds", path: orAcross, body: walmartTarget},

		{name: "works with count=exact", path: "/projects?select=name,clients(name)&clients=not.is.null",
			header: []string{"Prefer", "count=exact"}, body: withClient, match: map[string]string{"Content-Range": "0-3/4"}},
		{name: "works with count=exact and is.null", path: "/projects?select=name,clients()&clients=is.null",
			header: []string{"Prefer", "count=exact"}, body: orphan, match: map[string]string{"Content-Range": "0-0/1"}},
		{name: "works with count=exact and an or", path: orAcross,
			header: []string{"Prefer", "count=exact"}, body: walmartTarget, match: map[string]string{"Content-Range": "0-1/2"}},

		{name: "works with count=planned", path: "/projects?select=name,clients(name)&clients=not.is.null",
			header: []string{"Prefer", "count=planned"}, status: http.StatusPartialContent, body: withClient,
			match: map[string]string{"Content-Range": "0-3/5"}},
		{name: "works with count=planned and is.null", path: "/projects?select=name,clients()&clients=is.null",
			header: []string{"Prefer", "count=planned"}, body: orphan, match: map[string]string{"Content-Range": "0-0/1"}},
		{name: "works with count=planned and an or", path: orAcross,
			header: []string{"Prefer", "count=planned"}, body: walmartTarget, match: map[string]string{"Content-Range": "0-1/2"}},

		{name: "works with count=estimated", path: "/projects?select=name,clients(name)&clients=not.is.null",
			header: []string{"Prefer", "count=estimated"}, status: http.StatusPartialContent, body: withClient,
			match: map[string]string{"Content-Range": "0-3/5"}},
		{name: "works with count=estimated and is.null", path: "/projects?select=name,clients()&clients=is.null",
			header: []string{"Prefer", "count=estimated"}, body: orphan, match: map[string]string{"Content-Range": "0-0/1"}},
		{name: "works with count=estimated and an or", path: orAcross,
			header: []string{"Prefer", "count=estimated"}, body: walmartTarget, match: map[string]string{"Content-Range": "0-1/2"}},
	})
}

// TestRelatedQueriesSpecColumnNamedLikeEmbed mirrors RelatedQueriesSpec's
// "doesn't interfere filtering on column names that are the same as the
// relation name" and "... used for disambiguation": a filter other than
// is.null on the name of an embed filters the column of that name.
// (PostgREST's fixture has no rows here; ours has one each, which the
// last two cases find.)
func TestRelatedQueriesSpecColumnNamedLikeEmbed(t *testing.T) {
	s := startSpecServer(t)
	runSpecRequests(t, s, []specRequest{
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
