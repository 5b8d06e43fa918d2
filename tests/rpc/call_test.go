package rpc

import (
	"net/http"
	"testing"
)

// Calling functions: arguments by POST and GET, their conversion to the
// parameters' types, defaults, variadic parameters, whole-body
// parameters, and how a call is matched to a function.

const formType = "application/x-www-form-urlencoded"

func TestArgumentsArriveByPostOrGet(t *testing.T) {
	s := startServer(t)
	runCalls(t, s, []call{
		{name: "POST passes a JSON object of named arguments",
			method: "POST", path: "/rpc/add_them", body: `{"a": 1, "b": 2}`, status: 200, want: `3`},
		{name: "GET passes the same arguments in the query string",
			method: "GET", path: "/rpc/add_them?a=1&b=2", status: 200, want: `3`},
		{name: "POST takes a form body",
			method: "POST", path: "/rpc/add_them", body: "a=40&b=2", headers: []string{"Content-Type", formType}, status: 200, want: `42`},
		{name: "POST without a body calls a function without parameters",
			method: "POST", path: "/rpc/read_only_volatile", status: 200, want: `"off"`},
		{name: "POST with an empty object calls a function without parameters",
			method: "POST", path: "/rpc/read_only_volatile", body: `{}`, status: 200, want: `"off"`},
		{name: "GET without arguments calls a function without parameters",
			method: "GET", path: "/rpc/titles", status: 200, want: `["Cosmos", "Dune", "Emma", "Leaves of Grass", "Odes"]`},
		{name: "argument names are matched whatever their order in the body",
			method: "POST", path: "/rpc/greet", body: `{"greeting": "Hi", "name": "Ann"}`, status: 200, want: `"Hi, Ann"`},
	})
}

func TestArgumentsAreConvertedToTheParameterTypes(t *testing.T) {
	s := startServer(t)
	runCalls(t, s, []call{
		{name: "integers arrive as JSON numbers",
			method: "POST", path: "/rpc/add_them", body: `{"a": -7, "b": 10}`, status: 200, want: `3`},
		{name: "integers arrive as JSON strings",
			method: "POST", path: "/rpc/add_them", body: `{"a": "-7", "b": "10"}`, status: 200, want: `3`},
		{name: "an integer that does not parse is refused with 400 22P02",
			method: "GET", path: "/rpc/add_them?a=one&b=2", status: 400,
			want: errorJSON("22P02", `invalid input syntax for type integer: "one"`, nil, nil)},
		{name: "text arrives as it was sent",
			method: "POST", path: "/rpc/echo", body: `{"t": "héllo, \"world\"\n"}`, status: 200, want: `"héllo, \"world\"\n"`},
		{name: "text arrives percent-decoded from the query string",
			method: "GET", path: "/rpc/echo?t=a%20b%26c%3Dd", status: 200, want: `"a b&c=d"`},
		{name: "text that looks like a number stays text",
			method: "POST", path: "/rpc/echo", body: `{"t": "007"}`, status: 200, want: `"007"`},
		{name: "an array arrives as a JSON array",
			method: "POST", path: "/rpc/array_sum", body: `{"xs": [1, 2, 3]}`, status: 200, want: `6`},
		{name: "an array arrives as a PostgreSQL array literal in JSON",
			method: "POST", path: "/rpc/array_sum", body: `{"xs": "{1,2,3}"}`, status: 200, want: `6`},
		{name: "an array arrives as a PostgreSQL array literal in the query string",
			method: "GET", path: "/rpc/array_sum?xs=%7B1,2,3%7D", status: 200, want: `6`},
		{name: "an array arrives as a repeated query-string argument",
			method: "GET", path: "/rpc/array_sum?xs=1&xs=2&xs=3", status: 200, want: `6`},
		{name: "an empty array arrives",
			method: "POST", path: "/rpc/array_sum", body: `{"xs": []}`, status: 200, want: `0`},
		{name: "a JSON object arrives as jsonb",
			method: "POST", path: "/rpc/json_get", body: `{"doc": {"a": {"b": [1, 2]}, "c": null}, "key": "a"}`, status: 200, want: `{"b": [1, 2]}`},
		{name: "a JSON object arrives as a jsonb object by POST",
			method: "POST", path: "/rpc/json_kind", body: `{"doc": {"a": 1}}`, status: 200, want: `"object"`},
		// PostgREST passes query-string values as JSON strings, JSON
		// included (PostgREST/postgrest#1552).
		{name: "a JSON object in the query string arrives as a jsonb string, as in PostgREST",
			method: "GET", path: `/rpc/json_kind?doc=%7B%22a%22:1%7D`, status: 200, want: `"string"`},
		{name: "a boolean arrives as JSON true",
			method: "POST", path: "/rpc/negate", body: `{"flag": true}`, status: 200, want: `false`},
		{name: "a boolean arrives as false in the query string",
			method: "GET", path: "/rpc/negate?flag=false", status: 200, want: `true`},
		{name: "a boolean arrives as PostgreSQL's t",
			method: "GET", path: "/rpc/negate?flag=t", status: 200, want: `false`},
		{name: "a date arrives as an ISO date and comes back as one",
			method: "POST", path: "/rpc/next_day", body: `{"d": "2024-02-28"}`, status: 200, want: `"2024-02-29"`},
		{name: "a date arrives from the query string",
			method: "GET", path: "/rpc/next_day?d=2023-12-31", status: 200, want: `"2024-01-01"`},
		{name: "an enum label arrives as text",
			method: "POST", path: "/rpc/genre_label", body: `{"g": "poetry"}`, status: 200, want: `"shelved under poetry"`},
		{name: "an unknown enum label is refused with 400 22P02",
			method: "GET", path: "/rpc/genre_label?g=jazz", status: 400,
			want: errorJSON("22P02", `invalid input value for enum genre: "jazz"`, nil, nil)},
		{name: "a JSON null arrives as SQL NULL",
			method: "POST", path: "/rpc/echo", body: `{"t": null}`, status: 200, want: `null`},
	})
}

func TestDefaultsAndVariadicParameters(t *testing.T) {
	s := startServer(t)
	runCalls(t, s, []call{
		{name: "a parameter with a default may be left out of a POST",
			method: "POST", path: "/rpc/greet", body: `{"name": "Ann"}`, status: 200, want: `"Hello, Ann"`},
		{name: "a parameter with a default may be left out of a GET",
			method: "GET", path: "/rpc/greet?name=Ann", status: 200, want: `"Hello, Ann"`},
		{name: "a parameter with a default may be given",
			method: "GET", path: "/rpc/greet?name=Ann&greeting=Welcome", status: 200, want: `"Welcome, Ann"`},
		{name: "a variadic parameter takes a JSON array by POST",
			method: "POST", path: "/rpc/sum_all", body: `{"xs": [1, 2, 3, 4]}`, status: 200, want: `10`},
		{name: "a variadic parameter takes a repeated query-string argument by GET",
			method: "GET", path: "/rpc/sum_all?xs=1&xs=2&xs=3&xs=4", status: 200, want: `10`},
		{name: "one value of a variadic parameter by GET is one element, as in PostgREST (an array literal is no integer)",
			method: "GET", path: "/rpc/sum_all?xs=%7B5,6%7D", status: 400,
			want: errorJSON("22P02", `invalid input syntax for type integer: "{5,6}"`, nil, nil)},
		{name: "one value of a variadic parameter by GET",
			method: "GET", path: "/rpc/sum_all?xs=5", status: 200, want: `5`},
	})
}

func TestTheWholeBodyAsOneArgument(t *testing.T) {
	s := startServer(t)
	runCalls(t, s, []call{
		{name: "a single unnamed json parameter receives the whole object",
			method: "POST", path: "/rpc/whole_body", body: `{"a": 1, "b": [true, null]}`, status: 200, want: `{"a": 1, "b": [true, null]}`},
		{name: "a single unnamed json parameter receives a whole array of objects",
			method: "POST", path: "/rpc/whole_body", body: `[{"one": 1}, {"one": "two"}]`, status: 200, want: `[{"one": 1}, {"one": "two"}]`},
		{name: "an array that is not of objects with the same keys is 400 PGRST102, as PostgREST reads a body",
			method: "POST", path: "/rpc/whole_body", body: `[1, "two", {"three": 3}]`, status: 400,
			want: errorJSON("PGRST102", "All object keys must match", nil, nil)},
		{name: "Prefer params=single-object, removed in PostgREST 13, is ignored: the body's keys are argument names",
			method: "POST", path: "/rpc/single_object", body: `{"payload": {"x": 1}}`, headers: []string{"Prefer", "params=single-object"},
			status: 200, want: `{"got": {"x": 1}}`},
		{name: "Prefer params=single-object with handling=strict is 400 PGRST122",
			method: "POST", path: "/rpc/single_object", body: `{"payload": {"x": 1}}`, headers: []string{"Prefer", "handling=strict, params=single-object"},
			status: 400, want: errorJSON("PGRST122", "Invalid preferences given with handling=strict", "Invalid preferences: params=single-object", nil)},
		{name: "without the preference the body's keys are argument names",
			method: "POST", path: "/rpc/single_object", body: `{"payload": {"x": 1}}`, status: 200, want: `{"got": {"x": 1}}`},
	})
}

func TestCallsAreMatchedToOneFunction(t *testing.T) {
	s := startServer(t)
	runCalls(t, s, []call{
		{name: "overloads with different argument names are told apart by the names given (a)",
			method: "POST", path: "/rpc/pick", body: `{"a": 1}`, status: 200, want: `"picked a"`},
		{name: "overloads with different argument names are told apart by the names given (b)",
			method: "GET", path: "/rpc/pick?b=1", status: 200, want: `"picked b"`},
		{name: "a missing required argument is 404 PGRST202 naming the arguments given",
			method: "POST", path: "/rpc/add_them", body: `{"a": 1}`, status: 404,
			want: errorJSON("PGRST202", "Could not find the function api.add_them(a) in the schema cache",
				"Searched for the function api.add_them with parameter a or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
				"Perhaps you meant to call the function api.add_them(a, b)")},
		{name: "a missing required argument by GET is 404 PGRST202 without the json/jsonb alternative",
			method: "GET", path: "/rpc/add_them?b=1", status: 404,
			want: errorJSON("PGRST202", "Could not find the function api.add_them(b) in the schema cache",
				"Searched for the function api.add_them with parameter b, but no matches were found in the schema cache.",
				"Perhaps you meant to call the function api.add_them(a, b)")},
		{name: "an extra unknown argument is 404 PGRST202",
			method: "POST", path: "/rpc/add_them", body: `{"a": 1, "b": 2, "c": 3}`, status: 404,
			want: errorJSON("PGRST202", "Could not find the function api.add_them(a, b, c) in the schema cache",
				"Searched for the function api.add_them with parameters a, b, c or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
				"Perhaps you meant to call the function api.add_them(a, b)")},
		{name: "an extra unknown argument by GET is 404 PGRST202",
			method: "GET", path: "/rpc/greet?name=Ann&mood=glad", status: 404,
			want: errorJSON("PGRST202", "Could not find the function api.greet(mood, name) in the schema cache",
				"Searched for the function api.greet with parameters mood, name, but no matches were found in the schema cache.",
				"Perhaps you meant to call the function api.greet(greeting, name)")},
		{name: "a misspelt function is 404 PGRST202 suggesting the closest name",
			method: "POST", path: "/rpc/add_thme", body: `{"a": 1, "b": 2}`, status: 404,
			want: errorJSON("PGRST202", "Could not find the function api.add_thme(a, b) in the schema cache",
				"Searched for the function api.add_thme with parameters a, b or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
				"Perhaps you meant to call the function api.add_them")},
		{name: "an unknown function like no other is 404 PGRST202 without a hint",
			method: "GET", path: "/rpc/xyzzyqwvk", status: 404,
			want: errorJSON("PGRST202", "Could not find the function api.xyzzyqwvk without parameters in the schema cache",
				"Searched for the function api.xyzzyqwvk without parameters, but no matches were found in the schema cache.", nil)},
		{name: "a function in a schema that is not exposed is not found",
			method: "POST", path: "/rpc/sign", body: `{"payload": {}, "secret": "s"}`, status: 404,
			want: errorJSON("PGRST202", "Could not find the function api.sign(payload, secret) in the schema cache",
				"Searched for the function api.sign with parameters payload, secret or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
				nil)},
		{name: "overloads with the same argument names and different types are 300 PGRST203",
			method: "POST", path: "/rpc/overloaded", body: `{"x": 1}`, status: 300,
			want: errorJSON("PGRST203", "Could not choose the best candidate function between: api.overloaded(x => integer), api.overloaded(x => text)", nil,
				"Try renaming the parameters or the function itself in the database so function overloading can be resolved")},
		{name: "overloads with the same argument names are 300 PGRST203 by GET too",
			method: "GET", path: "/rpc/overloaded?x=a", status: 300,
			want: errorJSON("PGRST203", "Could not choose the best candidate function between: api.overloaded(x => integer), api.overloaded(x => text)", nil,
				"Try renaming the parameters or the function itself in the database so function overloading can be resolved")},
	})
}

func TestMethodsOnFunctions(t *testing.T) {
	s := startServer(t)
	var calls []call
	for _, m := range []string{http.MethodPut, http.MethodPatch, http.MethodDelete} {
		calls = append(calls, call{name: m + " is 405 PGRST101",
			method: m, path: "/rpc/add_them", body: `{"a": 1, "b": 2}`, status: 405,
			want: errorJSON("PGRST101", "Cannot use the "+m+" method on RPC", nil, nil)})
	}
	calls = append(calls,
		call{name: "OPTIONS on a volatile function allows OPTIONS and POST",
			method: "OPTIONS", path: "/rpc/add_book", status: 200, header: map[string]string{"Allow": "OPTIONS,POST"}},
		call{name: "OPTIONS on a stable function allows GET and HEAD as well",
			method: "OPTIONS", path: "/rpc/books_on", status: 200, header: map[string]string{"Allow": "OPTIONS,GET,HEAD,POST"}},
		call{name: "OPTIONS on an immutable function allows GET and HEAD as well",
			method: "OPTIONS", path: "/rpc/add_them", status: 200, header: map[string]string{"Allow": "OPTIONS,GET,HEAD,POST"}},
		call{name: "HEAD on a scalar function answers the headers without a body",
			method: "HEAD", path: "/rpc/add_them?a=1&b=2", status: 200,
			header: map[string]string{"Content-Type": "application/json; charset=utf-8"}},
		call{name: "HEAD on a set-returning function answers its range without a body",
			method: "HEAD", path: "/rpc/books_on?shelf=1", status: 200,
			header: map[string]string{"Content-Type": "application/json; charset=utf-8", "Content-Range": "0-1/*"}},
		call{name: "HEAD with Prefer count=exact answers the total without a body",
			method: "HEAD", path: "/rpc/all_books", headers: []string{"Prefer", "count=exact"}, status: 200,
			header: map[string]string{"Content-Range": "0-4/5"}},
	)
	runCalls(t, s, calls)
}
