package rpc

import "testing"

// What a call answers: a scalar, an object, an array, nothing; and the
// read language (select, filters, order, limit and offset, Range, counts,
// embedding, the singular object) on the rows a function returns.

const objectType = "application/vnd.pgrst.object+json"

func TestResultShapes(t *testing.T) {
	s := startServer(t)
	runCalls(t, s, []call{
		{name: "a scalar result is its JSON value",
			method: "GET", path: "/rpc/add_them?a=2&b=3", status: 200, want: `5`},
		{name: "a text result is a JSON string",
			method: "GET", path: "/rpc/echo?t=plain", status: 200, want: `"plain"`},
		{name: "a composite result is one object",
			method: "GET", path: "/rpc/bounds?xs=%7B3,1,2%7D", status: 200, want: `{"lo": 1, "hi": 3}`},
		{name: "a function returning a table's row type answers that row as an object",
			method: "GET", path: "/rpc/book?id=1", status: 200,
			want: `{"id": 1, "title": "Dune", "shelf_id": 1, "genre": "fiction", "pages": 412, "published": "1965-08-01"}`},
		{name: "a SETOF scalar result is an array of values",
			method: "POST", path: "/rpc/titles", status: 200, want: `["Cosmos", "Dune", "Emma", "Leaves of Grass", "Odes"]`,
			header: map[string]string{"Content-Range": "0-4/*"}},
		{name: "a SETOF composite result is an array of objects",
			method: "GET", path: "/rpc/books_on?shelf=2", status: 200,
			want: `[{"id": 2, "title": "Leaves of Grass", "shelf_id": 2, "genre": "poetry", "pages": 95, "published": "1855-07-04"},
				{"id": 3, "title": "Cosmos", "shelf_id": 2, "genre": "science", "pages": 365, "published": "1980-10-12"}]`,
			header: map[string]string{"Content-Range": "0-1/*"}},
		{name: "a SETOF result with no rows is an empty array",
			method: "GET", path: "/rpc/books_on?shelf=99", status: 200, want: `[]`, header: map[string]string{"Content-Range": "*/*"}},
		{name: "a TABLE result is an array of objects named by its columns",
			method: "GET", path: "/rpc/shelf_pages", status: 200,
			want: `[{"shelf": "hall", "books": 2, "pages": 886}, {"shelf": "study", "books": 2, "pages": 460}, {"shelf": "attic", "books": 1, "pages": 60}]`},
		{name: "a void function answers 204 without a body by POST",
			method: "POST", path: "/rpc/do_nothing", status: 204, header: map[string]string{"Content-Type": ""}},
		{name: "a stable void function answers 204 without a body by GET",
			method: "GET", path: "/rpc/check_nothing", status: 204, header: map[string]string{"Content-Type": ""}},
	})
}

func TestTheReadLanguageOnReturnedRows(t *testing.T) {
	s := startServer(t)
	runCalls(t, s, []call{
		{name: "select picks columns",
			method: "GET", path: "/rpc/books_on?shelf=1&select=id,title", status: 200,
			want: `[{"id": 1, "title": "Dune"}, {"id": 4, "title": "Emma"}]`},
		{name: "select renames and casts",
			method: "GET", path: "/rpc/books_on?shelf=1&select=name:title,pages::text", status: 200,
			want: `[{"name": "Dune", "pages": "412"}, {"name": "Emma", "pages": "474"}]`},
		{name: "select applies to a single composite result",
			method: "GET", path: "/rpc/book?id=2&select=title,genre", status: 200,
			want: `{"title": "Leaves of Grass", "genre": "poetry"}`},
		{name: "filters by GET sit beside the arguments",
			method: "GET", path: "/rpc/all_books?select=title&genre=eq.poetry", status: 200,
			want: `[{"title": "Leaves of Grass"}, {"title": "Odes"}]`},
		{name: "filters by POST sit in the query string",
			method: "POST", path: "/rpc/books_on?select=title&pages=gt.420", body: `{"shelf": 1}`, status: 200,
			want: `[{"title": "Emma"}]`},
		{name: "logic trees filter",
			method: "GET", path: "/rpc/all_books?select=id&or=(pages.lt.70,title.eq.Dune)", status: 200,
			want: `[{"id": 1}, {"id": 5}]`},
		{name: "order sorts",
			method: "GET", path: "/rpc/all_books?select=title&order=pages.desc", status: 200,
			want: `[{"title": "Emma"}, {"title": "Dune"}, {"title": "Cosmos"}, {"title": "Leaves of Grass"}, {"title": "Odes"}]`},
		{name: "order puts nulls where it is told",
			method: "GET", path: "/rpc/all_books?select=id&order=published.desc.nullsfirst&limit=2", status: 200,
			want: `[{"id": 5}, {"id": 3}]`},
		{name: "limit and offset page",
			method: "GET", path: "/rpc/all_books?select=id&order=id&limit=2&offset=1", status: 200,
			want: `[{"id": 2}, {"id": 3}]`, header: map[string]string{"Content-Range": "1-2/*"}},
		{name: "a Range header pages",
			method: "GET", path: "/rpc/all_books?select=id&order=id", headers: []string{"Range", "3-4"}, status: 200,
			want: `[{"id": 4}, {"id": 5}]`, header: map[string]string{"Content-Range": "3-4/*"}},
		{name: "Prefer count=exact gives the total",
			method: "GET", path: "/rpc/all_books?select=id&genre=eq.fiction", headers: []string{"Prefer", "count=exact"}, status: 200,
			want: `[{"id": 1}, {"id": 4}]`, header: map[string]string{"Content-Range": "0-1/2", "Preference-Applied": "count=exact"}},
		{name: "Prefer count=exact with a limit gives a partial 206",
			method: "GET", path: "/rpc/all_books?select=id&order=id&limit=2", headers: []string{"Prefer", "count=exact"}, status: 206,
			want: `[{"id": 1}, {"id": 2}]`, header: map[string]string{"Content-Range": "0-1/5"}},
		{name: "Prefer count=exact with a limit counts a SETOF scalar result",
			method: "GET", path: "/rpc/titles?limit=2", headers: []string{"Prefer", "count=exact"}, status: 206,
			want: `["Cosmos", "Dune"]`, header: map[string]string{"Content-Range": "0-1/5", "Preference-Applied": "count=exact"}},
		{name: "Prefer count=exact counts a POST call",
			method: "POST", path: "/rpc/books_on?select=id", body: `{"shelf": 2}`, headers: []string{"Prefer", "count=exact"}, status: 200,
			want: `[{"id": 2}, {"id": 3}]`, header: map[string]string{"Content-Range": "0-1/2"}},
		{name: "an offset past the rows is 416 PGRST103",
			method: "GET", path: "/rpc/all_books?offset=10", headers: []string{"Prefer", "count=exact"}, status: 416,
			want: errorJSON("PGRST103", "Requested range not satisfiable", "An offset of 10 was requested, but there are only 5 rows.", nil)},
	})
}

func TestEmbeddingOnReturnedRows(t *testing.T) {
	s := startServer(t)
	runCalls(t, s, []call{
		{name: "a SETOF table result embeds its many-to-one relationship",
			method: "GET", path: "/rpc/books_on?shelf=2&select=title,shelves(name)", status: 200,
			want: `[{"title": "Leaves of Grass", "shelves": {"name": "study"}}, {"title": "Cosmos", "shelves": {"name": "study"}}]`},
		{name: "a SETOF table result embeds its one-to-many relationship",
			method: "GET", path: "/rpc/all_shelves?select=name,books(title)&books.order=id", status: 200,
			want: `[{"name": "hall", "books": [{"title": "Dune"}, {"title": "Emma"}]},
				{"name": "study", "books": [{"title": "Leaves of Grass"}, {"title": "Cosmos"}]},
				{"name": "attic", "books": [{"title": "Odes"}]}]`},
		{name: "an embedded resource is filtered, and !inner drops the parents it empties",
			method: "GET", path: "/rpc/all_shelves?select=name,books!inner(title)&books.genre=eq.science", status: 200,
			want: `[{"name": "study", "books": [{"title": "Cosmos"}]}]`},
		{name: "an embedding is aliased and embeds by POST too",
			method: "POST", path: "/rpc/books_on?select=title,shelf:shelves(name)", body: `{"shelf": 3}`, status: 200,
			want: `[{"title": "Odes", "shelf": {"name": "attic"}}]`},
		{name: "a single composite result embeds",
			method: "GET", path: "/rpc/book?id=3&select=title,shelves(name)", status: 200,
			want: `{"title": "Cosmos", "shelves": {"name": "study"}}`},
		{name: "an unknown relationship is 400 PGRST200",
			method: "GET", path: "/rpc/books_on?shelf=1&select=title,todos(task)", status: 400,
			want: errorJSON("PGRST200", "Could not find a relationship between 'books' and 'todos' in the schema cache",
				"Searched for a foreign key relationship between 'books' and 'todos' in the schema 'api', but no matches were found.", nil)},
	})
}

func TestTheSingularObjectOnReturnedRows(t *testing.T) {
	s := startServer(t)
	objectCT := map[string]string{"Content-Type": objectType + "; charset=utf-8"}
	runCalls(t, s, []call{
		{name: "one row comes back as an object",
			method: "GET", path: "/rpc/books_on?shelf=3&select=id,title", headers: []string{"Accept", objectType}, status: 200,
			want: `{"id": 5, "title": "Odes"}`, header: objectCT},
		{name: "a filter that leaves one row gives an object by POST",
			method: "POST", path: "/rpc/books_on?select=title&id=eq.4", body: `{"shelf": 1}`, headers: []string{"Accept", objectType}, status: 200,
			want: `{"title": "Emma"}`, header: objectCT},
		{name: "several rows are 406 PGRST116",
			method: "GET", path: "/rpc/books_on?shelf=1", headers: []string{"Accept", objectType}, status: 406,
			want: errorJSON("PGRST116", "Cannot coerce the result to a single JSON object", "The result contains 2 rows", nil)},
		{name: "no rows are 406 PGRST116",
			method: "GET", path: "/rpc/books_on?shelf=99", headers: []string{"Accept", objectType}, status: 406,
			want: errorJSON("PGRST116", "Cannot coerce the result to a single JSON object", "The result contains 0 rows", nil)},
	})
}
