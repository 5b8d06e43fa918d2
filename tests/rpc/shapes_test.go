package rpc

import "testing"

// What PostgREST answers for functions with OUT parameters, TABLE
// columns, bare records, domains over row types, char(n) and bit(n)
// parameters, and the counts of their results. Fixture:
// testdata/20_rpc_shapes.sql.

func TestOutParametersAndTablesAreRows(t *testing.T) {
	s := startServer(t)
	runCalls(t, s, []call{
		{name: "a single OUT parameter is an object named by it",
			method: "GET", path: "/rpc/single_out?num=5", status: 200, want: `{"num_plus_one": 6}`},
		{name: "a single INOUT parameter is an object named by it",
			method: "GET", path: "/rpc/single_inout?num=2", status: 200, want: `{"num": 3}`},
		{name: "many OUT parameters are one object",
			method: "POST", path: "/rpc/many_out", status: 200, want: `{"a": 1, "b": "two"}`},
		{name: "select applies to OUT parameters",
			method: "GET", path: "/rpc/many_out?select=b", status: 200, want: `{"b": "two"}`},
		{name: "a single-column TABLE is an array of objects",
			method: "GET", path: "/rpc/single_column_table", status: 200, want: `[{"a": "A"}, {"a": "B"}]`},
		{name: "a single-column TABLE filters like rows",
			method: "GET", path: "/rpc/single_column_table?a=eq.B", status: 200, want: `[{"a": "B"}]`},
	})
}

func TestRecordsAndDomainsOverRows(t *testing.T) {
	s := startServer(t)
	runCalls(t, s, []call{
		{name: "a bare record is an object with the query's column names",
			method: "POST", path: "/rpc/one_record", status: 200, want: `{"id": 1, "title": "Dune"}`},
		{name: "a SETOF record is an array of such objects",
			method: "GET", path: "/rpc/some_records", status: 200, want: `[{"id": 1, "title": "Dune"}, {"id": 2, "title": "Leaves of Grass"}]`},
		{name: "a domain over a composite type is an object",
			method: "POST", path: "/rpc/point_as_domain", status: 200, want: `{"x": 10, "y": 5}`},
		{name: "a domain over a table's row type is that row",
			method: "GET", path: "/rpc/book_as_domain?id=1&select=id,title", status: 200, want: `{"id": 1, "title": "Dune"}`},
		{name: "a domain over a table's row type embeds like the table",
			method: "GET", path: "/rpc/book_as_domain?id=2&select=title,shelves(name)", status: 200,
			want: `{"title": "Leaves of Grass", "shelves": {"name": "study"}}`},
		{name: "a SETOF domain over a table's row type filters and orders like the table",
			method: "GET", path: "/rpc/books_as_domain?select=id&genre=eq.poetry&order=id.desc", status: 200,
			want: `[{"id": 5}, {"id": 2}]`},
	})
}

func TestCharAndBitParametersTakeAnyLength(t *testing.T) {
	s := startServer(t)
	runCalls(t, s, []call{
		{name: "character(n) takes a longer value, as the parameter keeps no length",
			method: "GET", path: "/rpc/char_param?c=abcdefg&cs=%7Babc,abcdefg%7D", status: 200,
			want: `[{"c": "abcdefg", "cs": ["abc", "abcdefg"]}]`},
		{name: "character(n) by POST",
			method: "POST", path: "/rpc/char_param", body: `{"c": "abcdefg", "cs": ["abc", "abcdefg"]}`, status: 200,
			want: `[{"c": "abcdefg", "cs": ["abc", "abcdefg"]}]`},
		{name: "bit(n) takes a longer value",
			method: "GET", path: "/rpc/bit_param?b=101010&bs=%7B101,101010%7D", status: 200,
			want: `[{"b": "101010", "bs": ["101", "101010"]}]`},
		{name: "a value that is no bit string is 400 22P02",
			method: "GET", path: "/rpc/bit_param?b=12&bs=%7B%7D", status: 400,
			want: errorJSON("22P02", `"2" is not a valid binary digit`, nil, nil)},
	})
}

func TestCountsOfCalls(t *testing.T) {
	s := startServer(t)
	exact := []string{"Prefer", "count=exact"}
	runCalls(t, s, []call{
		{name: "count=exact on a scalar counts one",
			method: "GET", path: "/rpc/add_them?a=3&b=4", headers: exact, status: 200, want: `7`,
			header: map[string]string{"Content-Range": "0-0/1", "Preference-Applied": "count=exact"}},
		{name: "count=exact on a composite counts one",
			method: "GET", path: "/rpc/point_as_domain", headers: exact, status: 200, want: `{"x": 10, "y": 5}`,
			header: map[string]string{"Content-Range": "0-0/1"}},
		{name: "count=exact on a single OUT parameter counts one",
			method: "GET", path: "/rpc/single_out?num=1", headers: exact, status: 200, want: `{"num_plus_one": 2}`,
			header: map[string]string{"Content-Range": "0-0/1"}},
		{name: "without count a scalar's total is unknown",
			method: "GET", path: "/rpc/add_them?a=3&b=4", status: 200, want: `7`,
			header: map[string]string{"Content-Range": "0-0/*"}},
		{name: "count=exact on a set of scalars with a limit is a partial 206",
			method: "GET", path: "/rpc/numbers?n=5&limit=2", headers: exact, status: 206, want: `[1, 2]`,
			header: map[string]string{"Content-Range": "0-1/5"}},
		{name: "count=estimated on a set of scalars counts exactly",
			method: "GET", path: "/rpc/numbers?n=5&limit=2", headers: []string{"Prefer", "count=estimated"}, status: 206, want: `[1, 2]`,
			header: map[string]string{"Content-Range": "0-1/5", "Preference-Applied": "count=estimated"}},
		{name: "count=planned on a set of scalars gives no total",
			method: "GET", path: "/rpc/numbers?n=5&limit=2", headers: []string{"Prefer", "count=planned"}, status: 200, want: `[1, 2]`,
			header: map[string]string{"Content-Range": "0-1/*", "Preference-Applied": "count=planned"}},
		{name: "count=estimated on a set of rows counts exactly",
			method: "GET", path: "/rpc/all_books?select=id&order=id&limit=2", headers: []string{"Prefer", "count=estimated"}, status: 206,
			want: `[{"id": 1}, {"id": 2}]`, header: map[string]string{"Content-Range": "0-1/5", "Preference-Applied": "count=estimated"}},
		{name: "count=planned on a set of rows gives no total",
			method: "GET", path: "/rpc/all_books?select=id&order=id&limit=2", headers: []string{"Prefer", "count=planned"}, status: 200,
			want: `[{"id": 1}, {"id": 2}]`, header: map[string]string{"Content-Range": "0-1/*", "Preference-Applied": "count=planned"}},
		{name: "HEAD with count=exact on a set of rows has the total and no body",
			method: "HEAD", path: "/rpc/all_books?limit=1", headers: exact, status: 206,
			header: map[string]string{"Content-Range": "0-0/5"}},
	})
}
