package rpc

import "testing"

// What a POST body passes to a function, as PostgREST reads it: a raw
// body to a single unnamed text, xml or bytea parameter by Content-Type,
// a JSON body to a single unnamed json parameter, the first object of an
// array, only the keys columns= names, repeated form fields to a variadic
// parameter, and the PGRST202 answers when nothing takes the body.
// Fixture: testdata/20_rpc_shapes.sql.

func TestRawBodiesGoToASingleUnnamedParameter(t *testing.T) {
	s := startServer(t)
	runCalls(t, s, []call{
		{name: "a text/plain body is the single unnamed text parameter",
			method: "POST", path: "/rpc/unnamed_text_param", body: "unnamed text arg", headers: []string{"Content-Type", "text/plain"},
			status: 200, want: `"got: unnamed text arg"`},
		{name: "a text/plain body with a charset is still text",
			method: "POST", path: "/rpc/unnamed_text_param", body: "héllo", headers: []string{"Content-Type", "text/plain; charset=utf-8"},
			status: 200, want: `"got: héllo"`},
		{name: "a text/xml body is the single unnamed xml parameter",
			method: "POST", path: "/rpc/raw_xml", body: "<note><from>John</from><to>Jane</to></note>",
			headers: []string{"Content-Type", "text/xml"}, status: 200, want: `"Jane"`},
		{name: "invalid XML is 400 2200N from the database",
			method: "POST", path: "/rpc/raw_xml", body: "<", headers: []string{"Content-Type", "text/xml"}, status: 400,
			want: errorJSON("2200N", "invalid XML content", "line 1: StartTag: invalid element name\n<\n ^", nil)},
		{name: "an application/octet-stream body is the single unnamed bytea parameter, byte for byte",
			method: "POST", path: "/rpc/raw_bytes", body: "\x00\x01\xffPNG", headers: []string{"Content-Type", "application/octet-stream"},
			status: 200, want: `"6 bytes, 0001ff504e47"`},
		{name: "overloads: an empty JSON object calls the one without parameters",
			method: "POST", path: "/rpc/shape_overloaded", body: `{}`, status: 200, want: `1`},
		{name: "overloads: named arguments call the named overload",
			method: "POST", path: "/rpc/shape_overloaded", body: `{"x": 1, "y": 2}`, status: 200, want: `3`},
		{name: "overloads: other JSON falls back to the unnamed json one",
			method: "POST", path: "/rpc/shape_overloaded", body: `{"A": 1, "B": 2}`, status: 200, want: `{"A": 1, "B": 2}`},
		{name: "overloads: text/plain calls the unnamed text one",
			method: "POST", path: "/rpc/shape_overloaded", body: "plain", headers: []string{"Content-Type", "text/plain"},
			status: 200, want: `"text: plain"`},
		{name: "overloads: application/octet-stream calls the unnamed bytea one",
			method: "POST", path: "/rpc/shape_overloaded", body: "abc", headers: []string{"Content-Type", "application/octet-stream"},
			status: 200, want: `"bytes: 3"`},
		{name: "overloads: GET with a Content-Type still calls the one without parameters",
			method: "GET", path: "/rpc/shape_overloaded", headers: []string{"Content-Type", "text/plain"}, status: 200, want: `1`},
	})
}

func TestNoFunctionTakesTheBody(t *testing.T) {
	s := startServer(t)
	runCalls(t, s, []call{
		{name: "text/plain with no unnamed text parameter is 404 PGRST202 naming no parameters, without a hint",
			method: "POST", path: "/rpc/add_them", body: "a simple text", headers: []string{"Content-Type", "text/plain"}, status: 404,
			want: errorJSON("PGRST202", "Could not find the function api.add_them in the schema cache",
				"Searched for the function api.add_them with a single unnamed text parameter, but no matches were found in the schema cache.", nil)},
		{name: "text/xml with no unnamed xml parameter is 404 PGRST202",
			method: "POST", path: "/rpc/unnamed_text_param", body: "<a/>", headers: []string{"Content-Type", "text/xml"}, status: 404,
			want: errorJSON("PGRST202", "Could not find the function api.unnamed_text_param in the schema cache",
				"Searched for the function api.unnamed_text_param with a single unnamed xml parameter, but no matches were found in the schema cache.", nil)},
		{name: "application/octet-stream with no unnamed bytea parameter is 404 PGRST202",
			method: "POST", path: "/rpc/unnamed_text_param", body: "\x01\x02", headers: []string{"Content-Type", "application/octet-stream"}, status: 404,
			want: errorJSON("PGRST202", "Could not find the function api.unnamed_text_param in the schema cache",
				"Searched for the function api.unnamed_text_param with a single unnamed bytea parameter, but no matches were found in the schema cache.", nil)},
		{name: "a function without parameters does not take a raw body",
			method: "POST", path: "/rpc/read_only_stable", body: "x", headers: []string{"Content-Type", "text/plain"}, status: 404,
			want: errorJSON("PGRST202", "Could not find the function api.read_only_stable in the schema cache",
				"Searched for the function api.read_only_stable with a single unnamed text parameter, but no matches were found in the schema cache.", nil)},
		{name: "a function with a single unnamed integer parameter is no endpoint; the hint names the closest callable one",
			method: "POST", path: "/rpc/unnamed_int_param", body: `{"x": 1, "y": 2}`, status: 404,
			want: errorJSON("PGRST202", "Could not find the function api.unnamed_int_param(x, y) in the schema cache",
				"Searched for the function api.unnamed_int_param with parameters x, y or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
				"Perhaps you meant to call the function api.unnamed_text_param")},
		{name: "an unnamed json and an unnamed jsonb overload are 300 PGRST203",
			method: "POST", path: "/rpc/json_or_jsonb", body: `{"A": 1}`, status: 300,
			want: errorJSON("PGRST203", "Could not choose the best candidate function between: api.json_or_jsonb( => json), api.json_or_jsonb( => jsonb)", nil,
				"Try renaming the parameters or the function itself in the database so function overloading can be resolved")},
		{name: "a text/csv body reads its header as argument names",
			method: "POST", path: "/rpc/shape_overloaded", body: "a,b\n1,2\n4,6", headers: []string{"Content-Type", "text/csv"}, status: 404,
			want: errorJSON("PGRST202", "Could not find the function api.shape_overloaded(a, b) in the schema cache",
				"Searched for the function api.shape_overloaded with parameters a, b, but no matches were found in the schema cache.",
				"Perhaps you meant to call the function api.shape_overloaded(x, y)")},
	})
}

func TestJSONBodiesColumnsAndArrays(t *testing.T) {
	s := startServer(t)
	runCalls(t, s, []call{
		{name: "columns= passes only the keys it names",
			method: "POST", path: "/rpc/echo?columns=t", body: `{"t": "John", "smth": "here", "fake_id": 13}`, status: 200, want: `"John"`},
		{name: "columns= naming a key the body lacks passes null",
			method: "POST", path: "/rpc/echo?columns=t", body: `{"other": 1}`, status: 200, want: `null`},
		{name: "without columns= an unknown key is 404 PGRST202",
			method: "POST", path: "/rpc/echo", body: `{"t": "John", "smth": "here"}`, status: 404,
			want: errorJSON("PGRST202", "Could not find the function api.echo(smth, t) in the schema cache",
				"Searched for the function api.echo with parameters smth, t or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
				"Perhaps you meant to call the function api.echo(t)")},
		{name: "an array of objects calls the function once, with the first object",
			method: "POST", path: "/rpc/add_them", body: `[{"a": 1, "b": 2}, {"a": 4, "b": 6}, {"a": 100, "b": 200}]`, status: 200, want: `3`},
		{name: "an array whose objects carry different keys is 400 PGRST102",
			method: "POST", path: "/rpc/add_them", body: `[{"a": 1, "b": 2}, {"a": 4}]`, status: 400,
			want: errorJSON("PGRST102", "All object keys must match", nil, nil)},
		{name: "an array of non-objects is 400 PGRST102",
			method: "POST", path: "/rpc/whole_body", body: `[1, 2]`, status: 400,
			want: errorJSON("PGRST102", "All object keys must match", nil, nil)},
		{name: "an array of objects goes whole to a single unnamed json parameter",
			method: "POST", path: "/rpc/whole_body", body: `[{"x": 1}, {"x": 2}]`, status: 200, want: `[{"x": 1}, {"x": 2}]`},
		{name: "columns= lets the array's objects differ and still takes the first",
			method: "POST", path: "/rpc/add_them?columns=a,b", body: `[{"a": 1, "b": 2}, {"c": 3}]`, status: 200, want: `3`},
	})
}

func TestRepeatedArguments(t *testing.T) {
	s := startServer(t)
	form := []string{"Content-Type", formType}
	runCalls(t, s, []call{
		{name: "GET repeats a variadic argument",
			method: "GET", path: "/rpc/join_words?sep=-&words=a&words=b&words=c", status: 200, want: `"a-b-c"`},
		{name: "GET passes one variadic value",
			method: "GET", path: "/rpc/join_words?sep=-&words=a", status: 200, want: `"a"`},
		{name: "GET without the variadic argument takes its default",
			method: "GET", path: "/rpc/words", status: 200, want: `""`},
		{name: "an empty form without the variadic argument takes its default",
			method: "POST", path: "/rpc/words", headers: form, status: 200, want: `""`},
		{name: "a form repeats a variadic field",
			method: "POST", path: "/rpc/join_words", body: "sep=-&words=hi&words=there", headers: form, status: 200, want: `"hi-there"`},
		{name: "a form passes one variadic value",
			method: "POST", path: "/rpc/join_words", body: "sep=-&words=hi", headers: form, status: 200, want: `"hi"`},
		{name: "a JSON array passes a variadic parameter",
			method: "POST", path: "/rpc/join_words", body: `{"sep": "+", "words": ["x", "y"]}`, status: 200, want: `"x+y"`},
		{name: "a repeated argument that is not variadic keeps its last value",
			method: "GET", path: "/rpc/echo?t=ignored&t=world", status: 200, want: `"world"`},
		{name: "a repeated plain argument beside a variadic one keeps its last value",
			method: "GET", path: "/rpc/join_words?sep=ignored&sep=,&words=a&words=b", status: 200, want: `"a,b"`},
		{name: "a repeated form field that is not variadic keeps its last value",
			method: "POST", path: "/rpc/echo", body: "t=ignored&t=world", headers: form, status: 200, want: `"world"`},
	})
}
