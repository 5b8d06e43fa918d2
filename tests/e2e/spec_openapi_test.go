package e2e

import (
	"net/http"
	"reflect"
	"testing"
)

// TestOpenApiSpecRootPath mirrors OpenApiSpec's "root path returns a valid
// openapi spec": HEAD / answers GET's Content-Type and no Content-Length.
func TestOpenApiSpecRootPath(t *testing.T) {
	s := startSpecServer(t)
	specDoc(t, s, "Accept", "application/openapi+json")
	res := s.do(t, http.MethodHead, "/", "", "Accept", "application/openapi+json", "Accept-Profile", "test")
	res.Expect(t, http.StatusOK, "", map[string]string{
		"Content-Type":   "application/openapi+json; charset=utf-8",
		"Content-Length": "",
	})
}

// TestOpenApiSpecTypes mirrors OpenApiSpec's "types": each column type's
// Swagger type and format, integers as int32 and int64.
func TestOpenApiSpecTypes(t *testing.T) {
	doc := specDoc(t, startSpecServer(t))
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

// TestOpenApiSpecDefaultsAndEnum mirrors OpenApiSpec's "Detects default
// values" and "enum": defaults typed as their columns, an enum's format
// qualified by its schema and its labels.
func TestOpenApiSpecDefaultsAndEnum(t *testing.T) {
	doc := specDoc(t, startSpecServer(t))
	for _, tc := range []struct {
		column string
		want   any
	}{
		{"text", "default"}, {"boolean", false}, {"integer", 42.0}, {"numeric", 42.2},
		{"date", "1900-01-01"}, {"time", "13:00:00"},
	} {
		if got := oaAt(doc, "definitions", "openapi_defaults", "properties", tc.column, "default"); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: default %#v, want %#v", tc.column, got, tc.want)
		}
	}
	want := map[string]any{"format": "test.enum_menagerie_type", "type": "string", "enum": []any{"foo", "bar"}}
	if got := oaAt(doc, "definitions", "menagerie", "properties", "enum"); !reflect.DeepEqual(got, want) {
		t.Errorf("enum: got %#v\nwant %#v", got, want)
	}
}

// TestOpenApiSpecFunctionArguments mirrors OpenApiSpec's "includes function
// summary/description and query parameters for arguments in the get path
// item" and "... body schema for arguments in the post path item".
func TestOpenApiSpecFunctionArguments(t *testing.T) {
	doc := specDoc(t, startSpecServer(t))
	path := func(method string) any { return oaAt(doc, "paths", "/rpc/varied_arguments_openapi", method) }
	for _, method := range []string{"get", "post"} {
		if got := oaAt(path(method), "summary"); got != "An RPC function" {
			t.Errorf("%s summary %#v", method, got)
		}
		if got := oaAt(path(method), "description"); got != "Just a test for RPC function arguments" {
			t.Errorf("%s description %#v", method, got)
		}
	}
	type arg struct{ name, format, getType, postType, items string }
	args := []arg{
		{"double", "double precision", "number", "number", ""},
		{"varchar", "character varying", "string", "string", ""},
		{"boolean", "boolean", "boolean", "boolean", ""},
		{"date", "date", "string", "string", ""},
		{"money", "money", "string", "string", ""},
		{"enum", "enum_menagerie_type", "string", "string", ""},
		{"text_arr", "text[]", "string", "array", "string"},
		{"int_arr", "integer[]", "string", "array", "integer"},
		{"bool_arr", "boolean[]", "string", "array", "boolean"},
		{"char_arr", "character[]", "string", "array", "string"},
		{"varchar_arr", "character varying[]", "string", "array", "string"},
		{"bigint_arr", "bigint[]", "string", "array", "integer"},
		{"numeric_arr", "numeric[]", "string", "array", "number"},
		{"json_arr", "json[]", "string", "array", "-"},
		{"jsonb_arr", "jsonb[]", "string", "array", "-"},
		{"integer", "int32", "integer", "integer", ""},
		{"json", "json", "string", "", ""},
		{"jsonb", "jsonb", "string", "", ""},
	}
	var wantGet []any
	wantProps := map[string]any{}
	var wantRequired []any
	for i, a := range args {
		required := i < 15
		wantGet = append(wantGet, map[string]any{"format": a.format, "in": "query", "name": a.name, "required": required, "type": a.getType})
		prop := map[string]any{"format": a.format}
		if a.postType != "" {
			prop["type"] = a.postType
		}
		switch a.items {
		case "":
		case "-":
			prop["items"] = map[string]any{}
		default:
			prop["items"] = map[string]any{"type": a.items}
		}
		wantProps[a.name] = prop
		if required {
			wantRequired = append(wantRequired, a.name)
		}
	}
	if got := oaAt(path("get"), "parameters"); !reflect.DeepEqual(got, wantGet) {
		t.Errorf("get parameters\n got %#v\nwant %#v", got, wantGet)
	}
	params, _ := oaAt(path("post"), "parameters").([]any)
	if len(params) == 0 {
		t.Fatalf("post parameters %#v", oaAt(path("post"), "parameters"))
	}
	wantSchema := map[string]any{"required": wantRequired, "properties": wantProps, "type": "object",
		"description": "An RPC function\n\nJust a test for RPC function arguments"}
	if got := oaAt(params[0], "schema"); !reflect.DeepEqual(got, wantSchema) {
		t.Errorf("post schema\n got %#v\nwant %#v", got, wantSchema)
	}
}
