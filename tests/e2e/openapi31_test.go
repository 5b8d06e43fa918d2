package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
)

// openapi_version 3.1: the same description as 2.0, in OpenAPI 3.1's
// shape, accepted by the same real validator (tests/openapi) as an
// OpenAPI 3.1 document: of the schema oa, and of PostgREST's fixture,
// whose tables and functions have a column or argument of every type
// PostgREST's OpenApiSpec describes.
func TestOpenAPI31HasTheContentOf20(t *testing.T) {
	t.Run("oa", func(t *testing.T) { expect31HasTheContentOf20(t, oaServer, "oa") })
	t.Run("PostgREST's fixture", func(t *testing.T) { expect31HasTheContentOf20(t, startSpecServer, "test") })
}

// expect31HasTheContentOf20 compares the descriptions of schema, 2.0 and
// 3.1, of servers that start serves.
func expect31HasTheContentOf20(t *testing.T, start func(*testing.T, ...string) *server, schema string) {
	s20 := start(t, "openapi_mode ignore-privileges")
	v2 := describe(t, s20, schema)
	s31 := start(t, "openapi_mode ignore-privileges", "openapi_version 3.1")
	v3 := describe(t, s31, schema)

	if v3["openapi"] != "3.1.0" || v3["swagger"] != nil {
		t.Fatalf("openapi = %v, swagger = %v; want 3.1.0 and none", v3["openapi"], v3["swagger"])
	}
	if got, want := oaKeys(v3["paths"]), oaKeys(v2["paths"]); !slices.Equal(got, want) {
		t.Errorf("paths %v, want those of 2.0 %v", got, want)
	}
	if got, want := oaKeys(oaAt(v3, "components", "schemas")), oaKeys(v2["definitions"]); !slices.Equal(got, want) {
		t.Errorf("components.schemas %v, want the 2.0 definitions %v", got, want)
	}
	for _, name := range oaKeys(v2["definitions"]) {
		a, _ := json.Marshal(oaAt(v2, "definitions", name, "properties"))
		b, _ := json.Marshal(oaAt(v3, "components", "schemas", name, "properties"))
		if string(a) != string(b) {
			t.Errorf("%s: properties differ:\n2.0: %s\n3.1: %s", name, a, b)
		}
	}
	// No reference is left pointing at 2.0's sections.
	raw := s31.get(t, "/", "Accept-Profile", schema).Body
	for _, old := range []string{`"#/definitions/`, `"#/parameters/`, `"in":"body"`, `"swagger"`} {
		if bytes.Contains(raw, []byte(old)) {
			t.Errorf("the 3.1 document still has %s", old)
		}
	}
	// Server and media types.
	if u, _ := oaAt(v3, "servers").([]any); len(u) == 0 || oaAt(u[0], "url") == nil {
		t.Errorf("servers = %v", oaAt(v3, "servers"))
	}
	for _, path := range oaKeys(v2["paths"]) {
		if oaAt(v2, "paths", path, "post") == nil {
			continue
		}
		if oaAt(v3, "paths", path, "post", "requestBody") == nil {
			t.Errorf("POST %s has no requestBody", path)
		}
	}
	if res := s31.get(t, "/", "Accept-Profile", schema); res.Status != http.StatusOK {
		t.Errorf("GET / = %d", res.Status)
	}
}
