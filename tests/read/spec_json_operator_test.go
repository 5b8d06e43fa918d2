package read

import "testing"

// TestJsonOperatorSpec mirrors JsonOperatorSpec's cases on json_arr,
// fav_numbers and returns_complex: arrows on json, on a composite column
// and on a composite column of a function's TABLE result.
func TestJsonOperatorSpec(t *testing.T) {
	s := startSpecServer(t)
	json := map[string]string{"Content-Type": "application/json; charset=utf-8"}
	// PostgreSQL's words before version 19, which the spec expects there.
	noOperator := func(types string) string {
		return `{"hint":"No operator matches the given name and argument types. You might need to add explicit type casts.",` +
			`"details":null,"code":"42883","message":"operator does not exist: ` + types + `"}`
	}
	runSpecRequests(t, s, []specRequest{
		{name: "accepts non reserved special characters in the key's name",
			path: "/json_arr?id=eq.10&select=data->!@%23$%^%26*_d->>!@%23$%^%26*_e::integer",
			body: `[{"!@#$%^&*_e":3}]`, match: json},
		// PostgREST writes the key after ->> as a literal, of type
		// unknown in PostgreSQL's error, and an index as an integer.
		{name: "fails when a double arrow ->> is followed with a single arrow -> (index)",
			path: "/json_arr?select=data->>c->1", status: 404, body: noOperator("text -> integer")},
		{name: "fails when a double arrow ->> is followed with a single arrow -> (key)",
			path: "/json_arr?select=data->>c->b", status: 404, body: noOperator("text -> unknown")},
		{name: "can get array of ints and alias/cast it",
			path: "/json_arr?select=idx0:data->>0::int,idx1:data->>1::int&id=in.(1,2)",
			body: `[{"idx0":1,"idx1":2},{"idx0":4,"idx1":5}]`, match: json},
		{name: "can get array in object keys",
			path: "/json_arr?select=data->c->0->d->>4::int&id=in.(7,8)", body: `[{"d":null},{"d":8}]`, match: json},
		{name: "only treats well formed numbers as indexes",
			path: "/json_arr?select=data->0->0xy1->1->23-xy-45->1->xy-6->>0::int&id=eq.9", body: `[{"xy-6":3}]`, match: json},
		{name: "obtains a composite type field (->)", path: "/fav_numbers?select=num->i", body: `[{"i":0.5},{"i":0.6}]`},
		{name: "obtains a composite type field (->>)", path: "/fav_numbers?select=num->>i", body: `[{"i":"0.5"},{"i":"0.6"}]`},
		{name: "can filter composite type field", path: "/fav_numbers?num->>i=gt.0.5",
			body: `[{"num":{"r":0.6,"i":0.6},"person":"B"}]`},
		{name: "orders by composite type field", path: "/fav_numbers?order=num->>i.desc",
			body: `[{"num":{"r":0.6,"i":0.6},"person":"B"},{"num":{"r":0.5,"i":0.5},"person":"A"}]`},
		{name: "can filter with negative indexes", path: "/json_arr?select=data&data->-1->b->>-1=eq.5",
			body: `[{"data":[{"a":[1,2,3]},{"b":[4,5]}]}]`, match: json},
		{name: "works when an RPC returns a dynamic TABLE with a composite type",
			path: "/rpc/returns_complex?select=val->r&val->i=gt.0.5&order=val->>i.desc",
			body: `[{"r":0.3},{"r":0.2}]`, match: json},
	})
}
