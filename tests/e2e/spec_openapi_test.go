package e2e

import (
	"net/http"
	"reflect"
	"testing"
)

// TestOpenApiSpecRootPath mirrors OpenApiSpec's "root path returns a valid
// openapi spec": HEAD / answers GET's Content-Type and no Content-Length.
func TestOpenApiSpecRootPath(t *testing.T) {
	s := oaServer(t)
	oaDoc(t, s, "Accept", "application/openapi+json")
	res := s.do(t, http.MethodHead, "/", "", "Accept", "application/openapi+json", "Accept-Profile", "oa")
	res.Expect(t, http.StatusOK, "", map[string]string{
		"Content-Type":   "application/openapi+json; charset=utf-8",
		"Content-Length": "",
	})
}

// TestOpenApiSpecTypes mirrors OpenApiSpec's "types": each column type's
// Swagger type and format, integers as int32 and int64.
func TestOpenApiSpecTypes(t *testing.T) {
	doc := oaDoc(t, oaServer(t))
	props := oaAt(doc, "definitions", "openapi_types", "properties")
	array := func(format, items string) map[string]any {
		item := map[string]any{}
		if items != "" {
			item["type"] = items
		}
		return map[string]any{"format": format, "type": "array", "items": item}
	}
	for _, tc := range []struct {
		name, column string
		want         map[string]any
	}{
		{"character varying to string", "a_character_varying", map[string]any{"format": "character varying", "type": "string"}},
		{"character(1) to string", "a_character", map[string]any{"format": "character", "type": "string", "maxLength": 1.0}},
		{"text to string", "a_text", map[string]any{"format": "text", "type": "string"}},
		{"boolean to boolean", "a_boolean", map[string]any{"format": "boolean", "type": "boolean"}},
		{"smallint to integer", "a_smallint", map[string]any{"format": "int32", "type": "integer"}},
		{"integer to integer", "a_integer", map[string]any{"format": "int32", "type": "integer"}},
		{"bigint to integer", "a_bigint", map[string]any{"format": "int64", "type": "integer"}},
		{"numeric to number", "a_numeric", map[string]any{"format": "numeric", "type": "number"}},
		{"real to number", "a_real", map[string]any{"format": "real", "type": "number"}},
		{"double_precision to number", "a_double_precision", map[string]any{"format": "double precision", "type": "number"}},
		{"json to any", "a_json", map[string]any{"format": "json"}},
		{"jsonb to any", "a_jsonb", map[string]any{"format": "jsonb"}},
		{"array types to array: text", "a_text_arr", array("text[]", "string")},
		{"array types to array: integer", "a_int_arr", array("integer[]", "integer")},
		{"array types to array: boolean", "a_bool_arr", array("boolean[]", "boolean")},
		{"array types to array: character", "a_char_arr", array("character[]", "string")},
		{"array types to array: character varying", "a_varchar_arr", array("character varying[]", "string")},
		{"array types to array: bigint", "a_bigint_arr", array("bigint[]", "integer")},
		{"array types to array: numeric", "a_numeric_arr", array("numeric[]", "number")},
		{"array types to array: json", "a_json_arr", array("json[]", "")},
		{"array types to array: jsonb", "a_jsonb_arr", array("jsonb[]", "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := oaAt(props, tc.column); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
}
