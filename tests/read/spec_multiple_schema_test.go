package read

import (
	"encoding/json"
	"net/http"
	"testing"
)

// specialSchema is MultipleSchemaSpec's schema named with a quote, a
// backslash and other specials: SPECIAL "@/\#~_-.
const specialSchema = "SPECIAL \"@/\\#~_-"

// startMultipleSchemaServer serves v1, v2 and specialSchema, as
// MultipleSchemaSpec's config does; its writes roll back, as under
// baseCfg. The Caddyfile takes the special name in backticks, which keep
// the backslash.
func startMultipleSchemaServer(t *testing.T) *server {
	t.Helper()
	return startSpecServer(t, "db_schemas v1 v2 `"+specialSchema+"`", "db_tx_end rollback-allow-override")
}

// TestMultipleSchemaSpec mirrors PostgREST v16.2's
// test/spec/Feature/Query/MultipleSchemaSpec.hs: reads, calls, embeds
// and writes on the schema Accept-Profile or Content-Profile chooses
// (the first when none), media type handlers of another schema, and the
// answer for a schema not exposed. A comment gives each case's line.
func TestMultipleSchemaSpec(t *testing.T) {
	s := startMultipleSchemaServer(t)
	profile := func(schema string) map[string]string {
		return map[string]string{"Content-Type": specJSONType, "Content-Profile": schema}
	}
	const invalid = `{"message":"Invalid schema: unknown","code":"PGRST106","details":null,"hint":"Only the following schemas are exposed: v1, v2, SPECIAL \"@/\\#~_-"}`
	runSpecRequests(t, s, []specRequest{
		// L25
		{name: `succeeds in reading table from default schema v1 if no schema is selected via header`, path: `/parents`,
			body: `[{"id":1,"name":"parent v1-1"},{"id":2,"name":"parent v1-2"}]`, match: profile("v1")},
		// L36
		{name: `succeeds in reading table from default schema v1 after explicitly passing it in the header`, path: `/parents`, header: []string{"Accept-Profile", "v1"},
			body: `[{"id":1,"name":"parent v1-1"},{"id":2,"name":"parent v1-2"}]`, match: profile("v1")},
		// L47
		{name: `succeeds in reading table from schema v2`, path: `/parents`, header: []string{"Accept-Profile", "v2"},
			body: `[{"id":3,"name":"parent v2-3"},{"id":4,"name":"parent v2-4"}]`, match: profile("v2")},
		// L58
		{name: `succeeds in reading another_table from schema v2`, path: `/another_table`, header: []string{"Accept-Profile", "v2"},
			body: `[{"id":5,"another_value":"value 5"},{"id":6,"another_value":"value 6"}]`, match: profile("v2")},
		// L69
		{name: `doesn't find another_table in schema v1`, path: `/another_table`, header: []string{"Accept-Profile", "v1"}, status: http.StatusNotFound,
			body: `{"code":"PGRST205","details":null,"hint":null,"message":"Could not find the table 'v1.another_table' in the schema cache"}`},
		// L78
		{name: `fails trying to read table from unknown schema`, path: `/parents`, header: []string{"Accept-Profile", "unknown"},
			status: http.StatusNotAcceptable, body: invalid},
		// L85
		{name: `succeeds in reading a table from a schema with uppercase and special characters in its name`, path: `/names?select=id,name`, header: []string{"Accept-Profile", specialSchema},
			body: `[{"id": 1, "name":"John"},{"id": 2, "name":"Mary"},{"id": 3, "name":"José"}]`, match: profile(specialSchema)},
		// L97
		{name: `succeeds in embedding with FK when the schema name has special characters`, path: `/names?select=name,languages(name)&id=in.(1,3)`, header: []string{"Accept-Profile", specialSchema},
			body: `[{"name": "John", "languages": {"name": "English"}},{"name": "José", "languages": {"name": "Spanish"}}]`, match: profile(specialSchema)},
		// L108
		{name: `succeeds in embedding with computed relationships when the schema name has special characters`, path: `/names?select=name,computed_languages(name)&id=in.(1,3)`, header: []string{"Accept-Profile", specialSchema},
			body: `[{"name": "John", "computed_languages": {"name": "English"}},{"name": "José", "computed_languages": {"name": "Spanish"}}]`, match: profile(specialSchema)},
		// L120
		{name: `succeeds inserting on default schema and returning it`, method: http.MethodPost, path: `/children`, header: []string{"Prefer", "return=representation"},
			reqBody: `{"id": 0, "name": "child v1-1", "parent_id": 1}`, status: http.StatusCreated,
			body: `[{"id": 0, "name": "child v1-1", "parent_id": 1}]`, match: map[string]string{"Content-Profile": "v1"}},
		// L131
		{name: `succeeds inserting on the v1 schema and returning its parent`, method: http.MethodPost, path: `/children?select=id,parent(*)`, header: []string{"Prefer", "return=representation", "Content-Profile", "v1"},
			reqBody: `{"id": 0, "name": "child v1-2", "parent_id": 2}`, status: http.StatusCreated,
			body: `[{"id": 0, "parent": {"id": 2, "name": "parent v1-2"}}]`, match: map[string]string{"Content-Profile": "v1"}},
		// L142
		{name: `succeeds inserting on the v2 schema and returning its parent`, method: http.MethodPost, path: `/children?select=id,parent(*)`, header: []string{"Prefer", "return=representation", "Content-Profile", "v2"},
			reqBody: `{"id": 0, "name": "child v2-3", "parent_id": 3}`, status: http.StatusCreated,
			body: `[{"id": 0, "parent": {"id": 3, "name": "parent v2-3"}}]`, match: map[string]string{"Content-Profile": "v2"}},
		// L153
		{name: `fails when inserting on an unknown schema`, method: http.MethodPost, path: `/children`, header: []string{"Content-Profile", "unknown"},
			reqBody: `{"name": "child 4", "parent_id": 4}`, status: http.StatusNotAcceptable, body: invalid},
		// L162
		{name: `succeeds in calling handler with a domain on another schema`, path: `/another_table`, header: []string{"Accept-Profile", "v2", "Accept", "text/plain"},
			raw: true, body: `plain`, match: map[string]string{"Content-Type": "text/plain; charset=utf-8", "Content-Profile": "v2"}},
		// L169
		{name: `succeeds in calling handler with a domain on an exposed schema`, path: `/another_table`, header: []string{"Accept-Profile", "v2", "Accept", "text/special"},
			raw: true, body: `special`, match: map[string]string{"Content-Type": "text/special", "Content-Profile": "v2"}},
		// L177
		{name: `succeeds in calling the default schema proc`, path: `/rpc/get_parents_below?id=6`,
			body: `[{"id":1,"name":"parent v1-1"}, {"id":2,"name":"parent v1-2"}]`, match: profile("v1")},
		// L186
		{name: `succeeds in calling the v1 schema proc and embedding`, path: `/rpc/get_parents_below?id=6&select=id,name,children(id,name)`, header: []string{"Accept-Profile", "v1"},
			body: `[{"id":1,"name":"parent v1-1","children":[{"id":1,"name":"child v1-1"}]},{"id":2,"name":"parent v1-2","children":[{"id":2,"name":"child v1-2"}]}]`, match: profile("v1")},
		// L197
		{name: `succeeds in calling the v2 schema proc and embedding`, path: `/rpc/get_parents_below?id=6&select=id,name,children(id,name)`, header: []string{"Accept-Profile", "v2"},
			body: `[{"id":3,"name":"parent v2-3","children":[{"id":1,"name":"child v2-3"}]},{"id":4,"name":"parent v2-4","children":[]}]`, match: profile("v2")},
		// L208
		{name: `succeeds in calling the v2 schema proc with POST by using Content-Profile`, method: http.MethodPost, path: `/rpc/get_parents_below?select=id,name`, header: []string{"Content-Profile", "v2"},
			reqBody: `{"id": "6"}`, body: `[{"id":3,"name":"parent v2-3"},{"id":4,"name":"parent v2-4"}]`, match: profile("v2")},
		// L220
		{name: `succeeds in calling handler with a domain on another schema (rpc)`, path: `/rpc/get_plain_text`, header: []string{"Accept-Profile", "v2", "Accept", "text/plain"},
			raw: true, body: `plain`, match: map[string]string{"Content-Type": "text/plain; charset=utf-8", "Content-Profile": "v2"}},
		// L227
		{name: `succeeds in calling handler with a domain on an exposed schema (rpc)`, path: `/rpc/get_special_text`, header: []string{"Accept-Profile", "v2", "Accept", "text/special"},
			raw: true, body: `special`, match: map[string]string{"Content-Type": "text/special", "Content-Profile": "v2"}},
		// L235
		{name: `succeeds in patching on the v1 schema and returning its parent`, method: http.MethodPatch, path: `/children?select=name,parent(name)&id=eq.1`, header: []string{"Content-Profile", "v1", "Prefer", "return=representation"},
			reqBody: `{"name": "child v1-1 updated"}`, body: `[{"name":"child v1-1 updated", "parent": {"name": "parent v1-1"}}]`, match: profile("v1")},
		// L245
		{name: `succeeds in patching on the v2 schema and returning its parent`, method: http.MethodPatch, path: `/children?select=name,parent(name)&id=eq.1`, header: []string{"Content-Profile", "v2", "Prefer", "return=representation"},
			reqBody: `{"name": "child v2-1 updated"}`, body: `[{"name":"child v2-1 updated", "parent": {"name": "parent v2-3"}}]`, match: profile("v2")},
		// L255
		{name: `succeeds on deleting on the v2 schema`, method: http.MethodDelete, path: `/children?id=eq.1`, header: []string{"Content-Profile", "v2", "Prefer", "return=representation"},
			body: `[{"id": 1, "name": "child v2-3", "parent_id": 3}]`, match: map[string]string{"Content-Profile": "v2"}},
		// L263
		{name: `succeeds on PUT on the v2 schema`, method: http.MethodPut, path: `/children?id=eq.111`, header: []string{"Content-Profile", "v2", "Prefer", "return=representation"},
			reqBody: `[{"id": 111, "name": "child v2-111", "parent_id": null}]`, status: http.StatusCreated,
			body: `[{"id": 111, "name": "child v2-111", "parent_id": null}]`, match: profile("v2")},
		// L395
		{name: `fails trying to read definitions from unknown schema`, path: `/`, header: []string{"Accept-Profile", "unknown"},
			status: http.StatusNotAcceptable, body: invalid},
	})
}

// TestMultipleSchemaSpecOpenAPI mirrors MultipleSchemaSpec's "OpenAPI
// output": the API root describes the schema Accept-Profile chooses (v1
// when none) and names it in Content-Profile. A comment gives each case's
// line.
func TestMultipleSchemaSpecOpenAPI(t *testing.T) {
	s := startMultipleSchemaServer(t)
	const parents = `{"type":"object","properties":{"id":{"description":"Note:\nThis is a Primary Key.<pk/>","format":"int32","type":"integer"},"name":{"format":"text","type":"string"}},"required":["id"]}`
	const anotherTable = `{"type":"object","properties":{"id":{"description":"Note:\nThis is a Primary Key.<pk/>","format":"int32","type":"integer"},"another_value":{"format":"text","type":"string"}},"required":["id"]}`
	cases := []struct {
		name, line, profile, definition, want, contentProfile string
	}{
		{`succeeds in reading table definition from default schema v1 if no schema is selected via header`, "L272", "", "parents", parents, "v1"},
		{`succeeds in reading table definition from default schema v1 after explicitly passing it in the header`, "L301", "v1", "parents", parents, "v1"},
		{`succeeds in reading table definition from schema v2`, "L330", "v2", "parents", parents, "v2"},
		{`succeeds in reading another_table definition from schema v2`, "L359", "v2", "another_table", anotherTable, "v2"},
		{`doesn't find another_table definition in schema v1`, "L388", "v1", "another_table", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var header []string
			if c.profile != "" {
				header = []string{"Accept-Profile", c.profile}
			}
			res := s.Do(t, http.MethodGet, "/", "", header...)
			if res.Status != http.StatusOK {
				t.Fatalf("%s: status %d, want 200; body %s", c.line, res.Status, res.Body)
			}
			if c.contentProfile != "" {
				if got := res.Header.Get("Content-Profile"); got != c.contentProfile {
					t.Errorf("%s: Content-Profile %q, want %q", c.line, got, c.contentProfile)
				}
			}
			var doc struct {
				Definitions map[string]json.RawMessage `json:"definitions"`
			}
			if err := json.Unmarshal(res.Body, &doc); err != nil {
				t.Fatalf("%s: %v", c.line, err)
			}
			def, ok := doc.Definitions[c.definition]
			if c.want == "" {
				if ok {
					t.Errorf("%s: definition %s present: %s", c.line, c.definition, def)
				}
				return
			}
			if !ok {
				t.Fatalf("%s: no definition %s", c.line, c.definition)
			}
			expectJSON(t, def, c.want)
		})
	}
}
