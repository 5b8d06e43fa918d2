package plan_test

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// callCache holds functions of schema api: add(a int, b int default),
// echo(json) taking a body whole, blob(bytea) taking a raw body, and two
// overloads of twice, one per parameter name.
func callCache() *schemacache.Cache {
	fn := func(name string, params ...schemacache.Param) *schemacache.Function {
		return &schemacache.Function{Schema: "api", Name: name, Params: params, Volatility: 'v',
			Returns: schemacache.Return{Shape: schemacache.ReturnsScalar, Type: "integer"}}
	}
	return schemacache.Build(&schemacache.Catalog{
		Schemas: []string{"api"},
		Functions: []*schemacache.Function{
			fn("add", schemacache.Param{Name: "a", Type: "integer"}, schemacache.Param{Name: "b", Type: "integer", HasDefault: true}),
			fn("echo", schemacache.Param{Type: "json"}),
			fn("blob", schemacache.Param{Type: "bytea"}),
			fn("twice", schemacache.Param{Name: "x", Type: "integer", HasDefault: true}),
			fn("twice", schemacache.Param{Name: "y", Type: "integer", HasDefault: true}),
		},
	})
}

// TestBuildCall plans calls from the parsed request alone: the overload
// the arguments choose, the parameters given and the arguments passed.
func TestBuildCall(t *testing.T) {
	cache := callCache()
	tests := []struct {
		name, method, function, query, contentType, body string
		wantGiven                                        []string
		wholeBody                                        bool
		wantArgs, wantErr                                string
	}{
		{name: "a GET passes the query string's arguments as strings", method: http.MethodGet, function: "add",
			query: "a=1", wantGiven: []string{"a"}, wantArgs: `{"a":"1"}`},
		{name: "a POST passes a JSON object's keys", method: http.MethodPost, function: "add",
			contentType: "application/json", body: `{"b":2,"a":1}`, wantGiven: []string{"a", "b"}, wantArgs: `{"b":2,"a":1}`},
		{name: "columns= names the arguments", method: http.MethodPost, function: "add", query: "columns=a",
			contentType: "application/json", body: `{"a":1,"z":3}`, wantGiven: []string{"a"}, wantArgs: `{"a":1,"z":3}`},
		{name: "a single unnamed json parameter takes the body whole", method: http.MethodPost, function: "echo",
			contentType: "application/json", body: `{"k":[1,2]}`, wholeBody: true, wantArgs: `{"k":[1,2]}`},
		{name: "a bytea parameter takes a raw body in hex", method: http.MethodPost, function: "blob",
			contentType: "application/octet-stream", body: "\x00\xff", wholeBody: true, wantArgs: `\x00ff`},
		{name: "a missing required parameter is PGRST202", method: http.MethodGet, function: "add",
			query: "b=1", wantErr: "PGRST202"},
		{name: "an unknown function is PGRST202", method: http.MethodGet, function: "nope", wantErr: "PGRST202"},
		{name: "no arguments fit two overloads: PGRST203", method: http.MethodGet, function: "twice", wantErr: "PGRST203"},
		{name: "a raw body without a parameter for it is PGRST202", method: http.MethodPost, function: "add",
			contentType: "text/plain", body: "x", wantErr: "PGRST202"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parse := apirequest.ParseRPCQuery
			if tt.method == http.MethodPost {
				parse = apirequest.ParseQuery
			}
			q, aerr := parse(tt.query)
			if aerr != nil {
				t.Fatal(aerr.Message)
			}
			req := &apirequest.Request{Method: tt.method, Schema: "api", Name: tt.function,
				ContentType: tt.contentType, Body: []byte(tt.body)}
			call, aerr := plan.BuildCall(cache, req, q)
			if tt.wantErr != "" {
				if aerr == nil || aerr.Code != tt.wantErr {
					t.Fatalf("got %+v, %v; want %s", call, aerr, tt.wantErr)
				}
				return
			}
			if aerr != nil {
				t.Fatalf("%s %s", aerr.Code, aerr.Message)
			}
			var given []string
			for _, p := range call.Given {
				given = append(given, p.Name)
			}
			if call.Function.Name != tt.function || call.WholeBody != tt.wholeBody || !reflect.DeepEqual(given, tt.wantGiven) ||
				string(call.Args) != tt.wantArgs {
				t.Errorf("got %s whole=%v given %q args %s", call.Function.Name, call.WholeBody, given, call.Args)
			}
		})
	}
}
