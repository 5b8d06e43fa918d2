package rpc

import "testing"

// The transaction a call runs in: read-only or not, committed or rolled
// back; max-affected; the function's own settings; and the response
// status and headers a function sets.

// books counts the books with a title.
func books(t testing.TB, title string) int64 {
	t.Helper()
	return sqlInt(t, `select count(*) from api.books where title = $1`, title)
}

func TestReadOnlyCalls(t *testing.T) {
	s := startServer(t)
	forgetWrites(t)
	runCalls(t, s, []call{
		{name: "a volatile function runs read-write by POST",
			method: "POST", path: "/rpc/read_only_volatile", status: 200, want: `"off"`},
		{name: "a volatile function runs read-only by GET",
			method: "GET", path: "/rpc/read_only_volatile", status: 200, want: `"on"`},
		{name: "a stable function runs read-only by POST",
			method: "POST", path: "/rpc/read_only_stable", status: 200, want: `"on"`},
		{name: "a stable function runs read-only by GET",
			method: "GET", path: "/rpc/read_only_stable", status: 200, want: `"on"`},
		{name: "a volatile function that writes is 405 25006 by GET",
			method: "GET", path: "/rpc/add_book?title=Written+by+GET", status: 405,
			want: errorJSON("25006", "cannot execute INSERT in a read-only transaction", nil, nil)},
		{name: "a volatile function that writes is 405 25006 by HEAD",
			method: "HEAD", path: "/rpc/add_book?title=Written+by+HEAD", status: 405,
			header: map[string]string{"Proxy-Status": "pgrest; error=25006"}},
	})
	t.Run("the refused GET and HEAD wrote nothing", func(t *testing.T) {
		for _, title := range []string{"Written by GET", "Written by HEAD"} {
			if n := books(t, title); n != 0 {
				t.Errorf("%d rows titled %q", n, title)
			}
		}
	})
}

func TestWritesByFunctions(t *testing.T) {
	s := startServer(t)
	forgetWrites(t)

	t.Run("a volatile function's write by POST is kept", func(t *testing.T) {
		s.Do(t, "POST", "/rpc/add_book?select=title,shelf_id,genre,pages", `{"title": "Neuromancer", "shelf": 1}`).
			Expect(t, 200, `{"title": "Neuromancer", "shelf_id": 1, "genre": "fiction", "pages": 100}`, nil)
		if n := books(t, "Neuromancer"); n != 1 {
			t.Errorf("%d rows titled Neuromancer, want 1", n)
		}
	})

	t.Run("the row a function wrote embeds its relationships", func(t *testing.T) {
		s.Do(t, "POST", "/rpc/add_book?select=title,shelves(name)", `{"title": "Solaris", "shelf": 3}`).
			Expect(t, 200, `{"title": "Solaris", "shelves": {"name": "attic"}}`, nil)
	})

	t.Run("Prefer count=exact calls a writing function once", func(t *testing.T) {
		s.Do(t, "POST", "/rpc/add_books?select=title", `{"titles": ["Counted"]}`, "Prefer", "count=exact").
			Expect(t, 200, `[{"title": "Counted"}]`, map[string]string{"Content-Range": "0-0/1", "Preference-Applied": "count=exact"})
		if n := books(t, "Counted"); n != 1 {
			t.Errorf("%d rows titled Counted, want 1", n)
		}
	})

	t.Run("a function that writes a row and then raises is 400 P0001 and the row is gone", func(t *testing.T) {
		s.Do(t, "POST", "/rpc/add_book_then_fail", `{"title": "Refused"}`).
			Expect(t, 400, errorJSON("P0001", "refused Refused", nil, "the insert is undone"), nil)
		if n := books(t, "Refused"); n != 0 {
			t.Errorf("%d rows titled Refused, want 0", n)
		}
	})

	t.Run("a constraint the write breaks is forwarded: 409 23505 for a duplicate", func(t *testing.T) {
		s.Do(t, "POST", "/rpc/add_book", `{"title": "Dune"}`).
			Expect(t, 409, errorJSON("23505", `duplicate key value violates unique constraint "books_title_key"`,
				"Key (title)=(Dune) already exists.", nil), nil)
	})

	t.Run("a constraint the write breaks is forwarded: 409 23503 for a missing shelf", func(t *testing.T) {
		s.Do(t, "POST", "/rpc/add_book", `{"title": "Nowhere", "shelf": 99}`).
			Expect(t, 409, errorJSON("23503", `insert or update on table "books" violates foreign key constraint "books_shelf_id_fkey"`,
				`Key (shelf_id)=(99) is not present in table "shelves".`, nil), nil)
	})
}

func TestTransactionEndPreference(t *testing.T) {
	forgetWrites(t)

	t.Run("with commit-allow-override, Prefer tx=rollback undoes the write and says so", func(t *testing.T) {
		s := startServer(t, "db_tx_end commit-allow-override")
		s.Do(t, "POST", "/rpc/add_book?select=title", `{"title": "Ephemeral"}`, "Prefer", "tx=rollback").
			Expect(t, 200, `{"title": "Ephemeral"}`, map[string]string{"Preference-Applied": "tx=rollback"})
		if n := books(t, "Ephemeral"); n != 0 {
			t.Errorf("%d rows titled Ephemeral, want 0", n)
		}
	})

	t.Run("with commit-allow-override, a write without the preference is kept", func(t *testing.T) {
		s := startServer(t, "db_tx_end commit-allow-override")
		s.Do(t, "POST", "/rpc/add_book?select=title", `{"title": "Lasting"}`).
			Expect(t, 200, `{"title": "Lasting"}`, map[string]string{"Preference-Applied": ""})
		if n := books(t, "Lasting"); n != 1 {
			t.Errorf("%d rows titled Lasting, want 1", n)
		}
	})

	t.Run("with commit-allow-override, every applied preference is echoed in PostgREST's order", func(t *testing.T) {
		s := startServer(t, "db_tx_end commit-allow-override")
		s.Do(t, "POST", "/rpc/add_books?select=title", `{"titles": ["Echoed"]}`,
			"Prefer", "max-affected=5, handling=strict, tx=rollback, count=exact").
			Expect(t, 200, `[{"title": "Echoed"}]`, map[string]string{
				"Preference-Applied": "count=exact, tx=rollback, handling=strict, max-affected=5", "Content-Range": "0-0/1"})
		if n := books(t, "Echoed"); n != 0 {
			t.Errorf("%d rows titled Echoed, want 0", n)
		}
	})

	t.Run("with the default commit, Prefer tx=rollback is ignored and the write is kept", func(t *testing.T) {
		s := startServer(t)
		s.Do(t, "POST", "/rpc/add_book?select=title", `{"title": "Stubborn"}`, "Prefer", "tx=rollback").
			Expect(t, 200, `{"title": "Stubborn"}`, map[string]string{"Preference-Applied": ""})
		if n := books(t, "Stubborn"); n != 1 {
			t.Errorf("%d rows titled Stubborn, want 1", n)
		}
	})
}

func TestMaxAffectedOnCalls(t *testing.T) {
	s := startServer(t)
	forgetWrites(t)
	strict := func(n string) []string { return []string{"Prefer", "handling=strict, max-affected=" + n} }

	t.Run("on a function that returns no set it is 400 PGRST128", func(t *testing.T) {
		s.Do(t, "POST", "/rpc/add_book", `{"title": "Single"}`, strict("1")...).
			Expect(t, 400, errorJSON("PGRST128", "Function must return SETOF or TABLE when max-affected preference is used with handling=strict", nil, nil), nil)
		if n := books(t, "Single"); n != 0 {
			t.Errorf("%d rows titled Single, want 0", n)
		}
	})

	t.Run("more rows than allowed are 400 PGRST124 and the writes are rolled back", func(t *testing.T) {
		s.Do(t, "POST", "/rpc/add_books", `{"titles": ["Many one", "Many two"]}`, strict("1")...).
			Expect(t, 400, errorJSON("PGRST124", "Query result exceeds max-affected preference constraint", "The query affects 2 rows", nil), nil)
		if n := books(t, "Many one") + books(t, "Many two"); n != 0 {
			t.Errorf("%d rows kept, want 0", n)
		}
	})

	t.Run("as many rows as allowed are answered and kept", func(t *testing.T) {
		s.Do(t, "POST", "/rpc/add_books?select=title", `{"titles": ["Few one", "Few two"]}`, strict("2")...).
			Expect(t, 200, `[{"title": "Few one"}, {"title": "Few two"}]`, map[string]string{"Preference-Applied": "handling=strict, max-affected=2"})
		if n := books(t, "Few one") + books(t, "Few two"); n != 2 {
			t.Errorf("%d rows kept, want 2", n)
		}
	})

	t.Run("without handling=strict max-affected is ignored", func(t *testing.T) {
		s.Do(t, "POST", "/rpc/add_books?select=title", `{"titles": ["Ignored one", "Ignored two"]}`, "Prefer", "max-affected=1").
			Expect(t, 200, `[{"title": "Ignored one"}, {"title": "Ignored two"}]`, map[string]string{"Preference-Applied": ""})
	})

	t.Run("with handling=lenient max-affected is ignored and only the handling echoed", func(t *testing.T) {
		s.Do(t, "POST", "/rpc/add_books?select=title", `{"titles": ["Lenient one", "Lenient two"]}`, "Prefer", "handling=lenient, max-affected=1").
			Expect(t, 200, `[{"title": "Lenient one"}, {"title": "Lenient two"}]`, map[string]string{"Preference-Applied": "handling=lenient"})
	})
}

func TestFunctionSettingsApplyPerCall(t *testing.T) {
	// One connection: what a call leaves behind would meet the next call.
	s := startServer(t, "db_pool 1")
	runCalls(t, s, []call{
		{name: "a function with SET search_path finds a table of an unexposed schema",
			method: "GET", path: "/rpc/private_label?id=1", status: 200, want: `"kept out of the API"`},
		{name: "the unexposed schema stays out of the API",
			method: "GET", path: "/labels", status: 404,
			want: errorJSON("PGRST205", "Could not find the table 'api.labels' in the schema cache", nil, nil)},
		{name: "the function's search_path does not outlive its call",
			method: "GET", path: "/rpc/search_path_has_private", status: 200, want: `false`},
	})
}

func TestResponseSettingsFromFunctions(t *testing.T) {
	s := startServer(t)
	runCalls(t, s, []call{
		{name: "response.status and response.headers set the status and headers",
			method: "POST", path: "/rpc/make_thing", status: 201, want: `{"id": 7}`,
			header: map[string]string{"Location": "/things?id=eq.7", "X-Thing": "made"}},
		{name: "a response.status that is not a number is 500 PGRST112",
			method: "POST", path: "/rpc/bad_status", status: 500,
			want: errorJSON("PGRST112", "response.status guc must be a valid status code", nil, nil)},
		{name: "a response.headers that is not an array is 500 PGRST111",
			method: "POST", path: "/rpc/bad_headers", status: 500,
			want: errorJSON("PGRST111", "response.headers guc must be a JSON array composed of objects with a single key and a string value", nil, nil)},
	})
}
