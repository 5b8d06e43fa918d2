package read

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// selectEdgeSchema adds to cacheSchema: documents with two foreign keys to
// people, and a column named like the relationship to tasks.
const selectEdgeSchema = `
create table api.people (id int primary key, name text not null);
create table api.documents (
  id        int primary key,
  title     text not null,
  author_id int references api.people (id),
  editor_id int references api.people (id),
  tasks     text
);
create table api.tasks (id int primary key, document_id int references api.documents (id), title text not null);
insert into api.people values (1, 'ann'), (2, 'ben');
insert into api.documents values (1, 'plan', 1, 2, 'the column'), (2, 'memo', 2, null, null);
insert into api.tasks values (1, 1, 'write'), (2, 1, 'read'), (3, 2, 'file');
`

// TestSelectEdgeCases: an embed named twice, with and without aliases, a
// column named like a relationship, embeds that select nothing.
func TestSelectEdgeCases(t *testing.T) {
	dsn := cacheDatabase(t, "select_edge")
	pgtest.Exec(t, dsn, selectEdgeSchema)
	s := startCacheServer(t, dsn, "db_aggregates_enabled true")

	sameName := func(join string) string {
		return `{"code":"42712","message":"table name \"` + join + `\" specified more than once","details":null,"hint":null}`
	}
	runErrorCases(t, s, []errorCase{
		{
			name:   "the same relation twice without aliases is PostgreSQL's duplicate name, as in PostgREST",
			path:   "/documents?select=id,people!author_id(name),people!editor_id(name)",
			status: http.StatusBadRequest,
			want:   sameName("documents_people_1"),
		},
		{
			name:   "an alias equal to another embed's name collides too",
			path:   "/documents?select=id,people!author_id(name),people:people!editor_id(name)",
			status: http.StatusBadRequest,
			want:   sameName("documents_people_1"),
		},
		{
			// A spread takes no alias, so two spreads of one relation
			// always collide, in PostgREST too.
			name:   "two spreads of the same relation collide",
			path:   "/documents?select=id,...people!author_id(a:name),...people!editor_id(e:name)",
			status: http.StatusBadRequest,
			want:   sameName("documents_people_1"),
		},
		{
			name:   "the name of a nested collision carries its depth",
			path:   "/people?select=id,documents!author_id(id,tasks(id),tasks(title))",
			status: http.StatusBadRequest,
			want:   sameName("documents_tasks_2"),
		},
		{
			name:   "a missing relationship anywhere is reported first",
			path:   "/documents?select=people!author_id(name),people!editor_id(name),nothing(id)",
			status: http.StatusBadRequest,
			want: `{"code":"PGRST200","message":"Could not find a relationship between 'documents' and 'nothing' in the schema cache",
				"details":"Searched for a foreign key relationship between 'documents' and 'nothing' in the schema 'api', but no matches were found.","hint":null}`,
		},
	})

	runBodyCases(t, s, []bodyCase{
		{
			name: "aliases give both embeds of the same relation",
			path: "/documents?select=id,author:people!author_id(name),editor:people!editor_id(name)&order=id",
			want: `[{"id":1,"author":{"name":"ann"},"editor":{"name":"ben"}},{"id":2,"author":{"name":"ben"},"editor":null}]`,
		},
		{
			name: "a spread beside an aliased embed of the same relation",
			path: "/documents?select=id,...people!author_id(author:name),editor:people!editor_id(name)&id=eq.1",
			want: `[{"id":1,"author":"ann","editor":{"name":"ben"}}]`,
		},
		{
			name: "a column named like a relationship is the column",
			path: "/documents?select=id,tasks&order=id",
			want: `[{"id":1,"tasks":"the column"},{"id":2,"tasks":null}]`,
		},
		{
			name: "with parentheses the name is the relationship",
			path: "/documents?select=id,tasks(title)&id=eq.1&tasks.order=id",
			want: `[{"id":1,"tasks":[{"title":"write"},{"title":"read"}]}]`,
		},
		{
			name: "a filter on the name beside the embed is on the column, but for is.null",
			path: "/documents?select=id,tasks(title)&tasks=eq.the%20column&tasks.order=id",
			want: `[{"id":1,"tasks":[{"title":"write"},{"title":"read"}]}]`,
		},
		{
			name: "is.null on the name beside the embed tests the embed",
			path: "/documents?select=id,tasks()&tasks=is.null",
			want: `[]`,
		},
		{
			name: "a filter and an order on the name without the embed are on the column",
			path: "/documents?select=id&tasks=eq.the%20column&order=tasks",
			want: `[{"id":1}]`,
		},
		{
			name: "an embed selecting nothing adds no key",
			path: "/documents?select=id,people!author_id()&order=id",
			want: `[{"id":1},{"id":2}]`,
		},
		{
			name: "an empty embed with !inner and a filter only filters",
			path: "/documents?select=id,people!author_id!inner()&people.name=eq.ben",
			want: `[{"id":2}]`,
		},
		{
			name: "select= with only an empty embed gives empty objects",
			path: "/documents?select=people!author_id()&order=id",
			want: `[{},{}]`,
		},
	})

	t.Run("the column and the embed of the same name both come back", func(t *testing.T) {
		res := s.Get(t, "/documents?select=tasks,tasks(id)&id=eq.2")
		res.ExpectStatus(t, http.StatusOK)
		want := `[{"tasks":null,"tasks":[{"id":3}]}]`
		if got := compactBody(t, res.Body); got != want {
			t.Errorf("body %s, want %s", got, want)
		}
	})
}

// compactBody is a JSON body without insignificant whitespace, duplicate
// keys kept.
func compactBody(t *testing.T, body []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, body); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, body)
	}
	return b.String()
}
