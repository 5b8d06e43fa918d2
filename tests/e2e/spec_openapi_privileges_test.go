package e2e

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// TestOpenApiSpecPrivileges mirrors OpenApiSpec's "doesn't include
// privileged table for anonymous", "includes table if user has
// permission" and their RPC counterparts: the document follows the
// role's privileges (webuser stands for postgrest_test_author).
func TestOpenApiSpecPrivileges(t *testing.T) {
	s := startSpecServer(t)
	anon := specDoc(t, s)
	author := specDoc(t, s, bearer(token(t, jwt.MapClaims{"role": "webuser"}))...)
	t.Run("doesn't include privileged table for anonymous", func(t *testing.T) {
		if got := oaAt(anon, "paths", "/authors_only"); got != nil {
			t.Errorf("/authors_only is described: %v", got)
		}
	})
	t.Run("includes table if user has permission", func(t *testing.T) {
		expectFirstTag(t, author, "/authors_only", "authors_only")
	})
	t.Run("doesn't include privileged function for anonymous", func(t *testing.T) {
		if got := oaAt(anon, "paths", "/rpc/privileged_hello"); got != nil {
			t.Errorf("/rpc/privileged_hello is described: %v", got)
		}
	})
	t.Run("includes function if user has permission", func(t *testing.T) {
		expectFirstTag(t, author, "/rpc/privileged_hello", "(rpc) privileged_hello")
	})
}

// expectFirstTag expects the first tag of path's POST operation.
func expectFirstTag(t *testing.T, doc map[string]any, path, want string) {
	t.Helper()
	tags, _ := oaAt(doc, "paths", path, "post", "tags").([]any)
	if len(tags) == 0 || tags[0] != want {
		t.Errorf("tags of POST %s: %v, want %q first", path, tags, want)
	}
}

// TestOpenApiSpecFunctionParameters mirrors OpenApiSpec's cases of OUT,
// INOUT and VARIADIC parameters and of the operations a function's
// volatility allows.
func TestOpenApiSpecFunctionParameters(t *testing.T) {
	doc := specDoc(t, startSpecServer(t))
	bodySchema := func(fn, key string) any {
		params, _ := oaAt(doc, "paths", "/rpc/"+fn, "post", "parameters").([]any)
		if len(params) == 0 {
			t.Fatalf("POST /rpc/%s has no parameters", fn)
		}
		return oaAt(params[0], "schema", key)
	}
	t.Run("doesn't include OUT params of function as required parameters", func(t *testing.T) {
		if got := bodySchema("many_out_params", "required"); got != nil {
			t.Errorf("required %v", got)
		}
	})
	t.Run("includes INOUT params(with no DEFAULT) of function as required parameters", func(t *testing.T) {
		if got := bodySchema("many_inout_params", "required"); !reflect.DeepEqual(got, []any{"num", "str"}) {
			t.Errorf("required %v", got)
		}
	})
	t.Run("uses a multi collection format when the function has a VARIADIC parameter", func(t *testing.T) {
		params, _ := oaAt(doc, "paths", "/rpc/variadic_param", "get", "parameters").([]any)
		want := map[string]any{"collectionFormat": "multi", "in": "query", "items": map[string]any{"format": "text", "type": "string"},
			"name": "v", "required": false, "type": "array"}
		if len(params) == 0 || !reflect.DeepEqual(params[0], want) {
			t.Errorf("parameters %#v", params)
		}
	})
	for _, tc := range []struct {
		name, fn string
		withGet  bool
	}{
		{"only includes POST method for volatile functions", "reset_table", false},
		{"includes GET and POST methods for stable functions", "getallusers", true},
		{"includes GET and POST methods for immutable functions", "jwt_test", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := oaAt(doc, "paths", "/rpc/"+tc.fn, "get") != nil; got != tc.withGet {
				t.Errorf("GET /rpc/%s described: %v", tc.fn, got)
			}
			if oaAt(doc, "paths", "/rpc/"+tc.fn, "post") == nil {
				t.Errorf("POST /rpc/%s is not described", tc.fn)
			}
		})
	}
	t.Run("does not include empty enum in the preferParams parameter", func(t *testing.T) {
		if got := oaAt(doc, "parameters", "preferParams", "enum"); got != nil {
			t.Errorf("enum %v", got)
		}
	})
}

// TestOpenApiSpecSecurity mirrors OpenApiSpec's "does not include security
// or security definitions by default" and SecurityOpenApiSpec's "includes
// security and security definitions" (openapi_security_active).
func TestOpenApiSpecSecurity(t *testing.T) {
	t.Run("does not include security or security definitions by default", func(t *testing.T) {
		doc := specDoc(t, startSpecServer(t))
		for _, key := range []string{"security", "securityDefinitions"} {
			if got, ok := doc[key]; ok {
				t.Errorf("%s: %v", key, got)
			}
		}
	})
	t.Run("Security active/includes security and security definitions", func(t *testing.T) {
		doc := specDoc(t, startSpecServer(t, "openapi_security_active true"))
		if got, want := doc["security"], []any{map[string]any{"JWT": []any{}}}; !reflect.DeepEqual(got, want) {
			t.Errorf("security %#v", got)
		}
		want := map[string]any{"JWT": map[string]any{
			"description": `Add the token prepending "Bearer " (without quotes) to it`,
			"in":          "header", "name": "Authorization", "type": "apiKey"}}
		if got := doc["securityDefinitions"]; !reflect.DeepEqual(got, want) {
			t.Errorf("securityDefinitions %#v", got)
		}
	})
}

// TestDisabledOpenApiSpec mirrors DisabledOpenApiSpec: with openapi_mode
// disabled, GET / is 404 PGRST126, 93 bytes long.
func TestDisabledOpenApiSpec(t *testing.T) {
	s := startSpecServer(t, "openapi_mode disabled")
	s.get(t, "/", "Accept", "application/openapi+json").Expect(t, http.StatusNotFound,
		`{"code":"PGRST126","details":null,"hint":null,"message":"Root endpoint metadata is disabled"}`,
		map[string]string{"Content-Length": "93"})
}

// TestProxySpec mirrors ProxySpec: with openapi_server_proxy_uri the
// document is a valid OpenAPI 2.0 one.
func TestProxySpec(t *testing.T) {
	doc := specDoc(t, startSpecServer(t, "openapi_server_proxy_uri https://postgrest.com/openapi.json"), "Accept", "application/openapi+json")
	if got := oaAt(doc, "host"); got != "postgrest.com:443" {
		t.Errorf("host %v", got)
	}
}

// TestIgnorePrivOpenApiSpec mirrors IgnorePrivOpenApiSpec: with
// openapi_mode ignore-privileges the document describes what the role may
// not use too, of the schema the profile names.
func TestIgnorePrivOpenApiSpec(t *testing.T) {
	s := startSpecServer(t, "openapi_mode ignore-privileges")
	doc := specDoc(t, s, "Accept", "application/openapi+json")
	v1 := specDoc(t, s, "Accept-Profile", "v1")
	t.Run("root path returns a valid openapi spec", func(t *testing.T) {
		s.do(t, http.MethodHead, "/", "", "Accept", "application/openapi+json", "Accept-Profile", "test").Expect(t, http.StatusOK, "",
			map[string]string{"Content-Type": "application/openapi+json; charset=utf-8", "Content-Length": ""})
	})
	t.Run("table/includes privileged table even if user does not have permission", func(t *testing.T) {
		expectFirstTag(t, doc, "/authors_only", "authors_only")
	})
	t.Run("table/only includes tables that belong to another schema if the Accept-Profile header is used", func(t *testing.T) {
		if oaAt(doc, "paths", "/children") != nil || oaAt(v1, "paths", "/children") == nil {
			t.Errorf("/children described in test: %v, in v1: %v", oaAt(doc, "paths", "/children") != nil, oaAt(v1, "paths", "/children") != nil)
		}
	})
	t.Run("table/includes comments on tables", func(t *testing.T) {
		get := oaAt(doc, "paths", "/grandchild_entities", "get")
		if got := oaAt(get, "summary"); got != "grandchild_entities summary" {
			t.Errorf("summary %v", got)
		}
		if got := oaAt(get, "description"); got != "grandchild_entities description\nthat spans\nmultiple lines" {
			t.Errorf("description %q", got)
		}
	})
	t.Run("RPC/includes privileged function even if user does not have permission", func(t *testing.T) {
		expectFirstTag(t, doc, "/rpc/privileged_hello", "(rpc) privileged_hello")
	})
	t.Run("RPC/only includes functions that belong to another schema if the Accept-Profile header is used", func(t *testing.T) {
		if oaAt(doc, "paths", "/rpc/get_parents_below") != nil || oaAt(v1, "paths", "/rpc/get_parents_below") == nil {
			t.Errorf("get_parents_below described in test: %v, in v1: %v",
				oaAt(doc, "paths", "/rpc/get_parents_below") != nil, oaAt(v1, "paths", "/rpc/get_parents_below") != nil)
		}
	})
}

// TestRootSpecSpec mirrors RootSpec: db_root_spec's function, returning
// the application/openapi+json domain, answers GET / as the OpenAPI
// document or as JSON, as asked.
func TestRootSpecSpec(t *testing.T) {
	s := startSpecServer(t, "db_root_spec root")
	body := `{"swagger":"2.0","info":{"title":"PostgREST API","description":"This is a dynamic API generated by PostgREST"}}`
	t.Run("accepts application/openapi+json", func(t *testing.T) {
		s.get(t, "/", "Accept", "application/openapi+json").Expect(t, http.StatusOK, body,
			map[string]string{"Content-Type": "application/openapi+json; charset=utf-8"})
	})
	t.Run("accepts application/json", func(t *testing.T) {
		s.get(t, "/", "Accept", "application/json").Expect(t, http.StatusOK, body,
			map[string]string{"Content-Type": "application/json; charset=utf-8"})
	})
}
