package openapi

import (
	"encoding/json"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// testCache is a small shop: items with every kind of column, orders
// referencing items, a view over items, a stable and a volatile function
// and a table of another schema.
func testCache() *schemacache.Cache {
	items := &schemacache.Relation{Schema: "api", Name: "items", Kind: schemacache.KindTable,
		Description: "Things for sale\n\nEvery row is one article.", Insertable: true, Updatable: true, Deletable: true,
		Columns: []*schemacache.Column{
			{Name: "id", Type: "integer", Default: "nextval('api.items_id_seq'::regclass)", HasDefault: true, Position: 1},
			{Name: "name", Type: "character varying(40)", MaxLength: 40, Description: "What it is called", Position: 2},
			{Name: "price", Type: "numeric(10,2)", Nullable: true, Default: "0", HasDefault: true, Position: 3},
			{Name: "tags", Type: "text[]", Nullable: true, Default: "'{}'::text[]", HasDefault: true, Position: 4},
			{Name: "data", Type: "jsonb", Nullable: true, Default: `'{"a": 1}'::jsonb`, HasDefault: true, Position: 5},
			{Name: "status", Type: "item_status", EnumValues: []string{"new", "sold"},
				Default: "'new'::item_status", HasDefault: true, Position: 6},
			{Name: "created", Type: "timestamp with time zone", Default: "now()", HasDefault: true, Position: 7},
			{Name: "on_sale", Type: "boolean", Nullable: true, Default: "false", HasDefault: true, Position: 8},
			{Name: "order", Type: "integer", Nullable: true, Position: 9},
		}}
	orders := &schemacache.Relation{Schema: "api", Name: "orders", Kind: schemacache.KindTable,
		Insertable: true, Updatable: true, Deletable: true,
		Columns: []*schemacache.Column{
			{Name: "id", Type: "bigint", Position: 1},
			{Name: "item_id", Type: "integer", Description: "The article", Position: 2},
		}}
	cheap := &schemacache.Relation{Schema: "api", Name: "cheap items", Kind: schemacache.KindView,
		Columns: []*schemacache.Column{
			{Name: "id", Type: "integer", Nullable: true, Position: 1},
			{Name: "name", Type: "character varying(40)", Nullable: true, Position: 2},
		}}
	hidden := &schemacache.Relation{Schema: "private", Name: "secrets", Kind: schemacache.KindTable,
		Columns: []*schemacache.Column{{Name: "id", Type: "integer", Position: 1}}}
	return schemacache.Build(&schemacache.Catalog{
		Schemas:   []string{"api", "private"},
		Relations: []*schemacache.Relation{items, orders, cheap, hidden},
		Functions: []*schemacache.Function{
			{Schema: "api", Name: "add", OID: 100, Volatility: 's', Description: "Adds\nSums two numbers.",
				Params:  []schemacache.Param{{Name: "a", Type: "integer"}, {Name: "b", Type: "integer", HasDefault: true}},
				Returns: schemacache.Return{Type: "integer"}},
			{Schema: "api", Name: "add", OID: 101, Volatility: 's',
				Params:  []schemacache.Param{{Name: "x", Type: "text"}},
				Returns: schemacache.Return{Type: "text"}},
			{Schema: "api", Name: "touch", OID: 102, Volatility: 'v',
				Params:  []schemacache.Param{{Name: "ids", Type: "integer[]", Variadic: true}, {Name: "doc", Type: "jsonb", HasDefault: true}},
				Returns: schemacache.Return{Type: "void", Shape: schemacache.ReturnsVoid}},
			{Schema: "api", Name: "tally", OID: 103, Volatility: 'i',
				Params:  []schemacache.Param{{Name: "ids", Type: "integer[]", Variadic: true}, {Name: "opts", Type: "json", HasDefault: true}},
				Returns: schemacache.Return{Type: "integer"}},
		},
		Keys: []schemacache.Key{
			{Table: schemacache.QualifiedName{Schema: "api", Name: "items"}, Constraint: "items_pkey", Primary: true, Columns: []string{"id"}},
			{Table: schemacache.QualifiedName{Schema: "api", Name: "orders"}, Constraint: "orders_pkey", Primary: true, Columns: []string{"id"}},
		},
		ForeignKeys: []schemacache.ForeignKey{{Constraint: "orders_item_id_fkey",
			Table: schemacache.QualifiedName{Schema: "api", Name: "orders"}, ForeignTable: schemacache.QualifiedName{Schema: "api", Name: "items"},
			Columns: [][2]string{{"item_id", "id"}}}},
		ViewColumns: []schemacache.ViewColumn{
			{View: schemacache.QualifiedName{Schema: "api", Name: "cheap items"}, Column: "id",
				Table: schemacache.QualifiedName{Schema: "api", Name: "items"}, TableColumn: "id"},
		},
	})
}

// build returns the document decoded, and its raw text.
func build(t *testing.T, cache *schemacache.Cache, opts Options) (map[string]any, string) {
	t.Helper()
	if opts.Schema == "" {
		opts.Schema = "api"
	}
	raw, err := Build(cache, opts)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("document is not JSON: %v\n%s", err, raw)
	}
	return doc, string(raw)
}

// at walks the decoded document along keys.
func at(t *testing.T, v any, keys ...string) any {
	t.Helper()
	for i, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s is not an object", strings.Join(keys[:i], "."))
		}
		if v, ok = m[k]; !ok {
			t.Fatalf("%s has no %q", strings.Join(keys[:i], "."), k)
		}
	}
	return v
}

func has(v any, key string) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, ok = m[key]
	return ok
}

func keysInOrder(t *testing.T, raw, section string) []string {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(doc[section])))
	var keys []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch tok := tok.(type) {
		case json.Delim:
			if tok == '{' || tok == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 {
				keys = append(keys, tok)
				// skip the value
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return keys
}

func TestOpenAPIDocumentIsSwagger2WithPostgRESTsTopLevelShape(t *testing.T) {
	comment := "Shop API\n\nBuy and sell things."
	doc, raw := build(t, testCache(), Options{SchemaComment: &comment, Version: "1.2.3",
		Server: Server{Scheme: "https", Host: "api.example.com:443", BasePath: "/v1"}})

	for _, tc := range []struct {
		path []string
		want any
	}{
		{[]string{"swagger"}, "2.0"},
		{[]string{"info", "title"}, "Shop API"},
		{[]string{"info", "description"}, "Buy and sell things."},
		{[]string{"info", "version"}, "1.2.3"},
		{[]string{"host"}, "api.example.com:443"},
		{[]string{"basePath"}, "/v1"},
		{[]string{"schemes"}, []any{"https"}},
		{[]string{"consumes"}, []any{"application/json", "application/vnd.pgrst.object+json;nulls=stripped", "application/vnd.pgrst.object+json", "text/csv"}},
		{[]string{"produces"}, []any{"application/json", "application/vnd.pgrst.object+json;nulls=stripped", "application/vnd.pgrst.object+json", "text/csv"}},
		{[]string{"paths", "/", "get", "produces"}, []any{"application/openapi+json", "application/json"}},
	} {
		t.Run(strings.Join(tc.path, ".")+" is as PostgREST writes it", func(t *testing.T) {
			if got := at(t, doc, tc.path...); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}

	t.Run("paths list the root, then tables and views by name, then functions by name", func(t *testing.T) {
		want := []string{"/", "/cheap items", "/items", "/orders", "/rpc/add", "/rpc/tally", "/rpc/touch"}
		if got := keysInOrder(t, raw, "paths"); !slices.Equal(got, want) {
			t.Errorf("paths %v, want %v", got, want)
		}
	})
	t.Run("another schema's relations are left out", func(t *testing.T) {
		if has(at(t, doc, "definitions"), "secrets") {
			t.Error("private.secrets is described")
		}
	})
	t.Run("definition properties keep the columns' order", func(t *testing.T) {
		var d struct {
			Definitions map[string]json.RawMessage `json:"definitions"`
		}
		if err := json.Unmarshal([]byte(raw), &d); err != nil {
			t.Fatal(err)
		}
		got := keysInOrder(t, string(d.Definitions["items"]), "properties")
		want := []string{"id", "name", "price", "tags", "data", "status", "created", "on_sale", "order"}
		if !slices.Equal(got, want) {
			t.Errorf("properties %v, want %v", got, want)
		}
	})
	t.Run("notes keep their angle brackets unescaped", func(t *testing.T) {
		if !strings.Contains(raw, "<pk/>") {
			t.Error("<pk/> is escaped or missing")
		}
	})
}

func TestOpenAPIDocumentDefaultsWithoutSchemaComment(t *testing.T) {
	doc, _ := build(t, testCache(), Options{})
	if got := at(t, doc, "info", "title"); got != defaultTitle {
		t.Errorf("title %v", got)
	}
	if got := at(t, doc, "info", "version"); got != "dev" {
		t.Errorf("version %v", got)
	}
	if got := at(t, doc, "basePath"); got != "/" {
		t.Errorf("basePath %v", got)
	}
	if has(doc, "host") {
		t.Errorf("host %v without a server", doc["host"])
	}
	t.Run("a schema comment with an empty first line keeps the default title", func(t *testing.T) {
		comment := "\nOnly a description."
		doc, _ := build(t, testCache(), Options{SchemaComment: &comment})
		if got := at(t, doc, "info", "title"); got != defaultTitle {
			t.Errorf("title %v", got)
		}
		if got := at(t, doc, "info", "description"); got != "Only a description." {
			t.Errorf("description %v", got)
		}
	})
	t.Run("a host Swagger 2.0 cannot write is left out", func(t *testing.T) {
		doc, _ := build(t, testCache(), Options{Server: Server{Scheme: "http", Host: "[::1]:3000"}})
		if has(doc, "host") {
			t.Errorf("host %v", doc["host"])
		}
	})
}

func TestOpenAPIDefinitionsTypeColumnsFromTheirPostgreSQLTypes(t *testing.T) {
	doc, _ := build(t, testCache(), Options{})
	props := at(t, doc, "definitions", "items", "properties")
	for _, tc := range []struct {
		column string
		want   map[string]any
	}{
		{"id", map[string]any{"type": "integer", "format": "int32", "description": "Note:\nThis is a Primary Key.<pk/>"}},
		{"name", map[string]any{"type": "string", "format": "character varying", "maxLength": 40.0, "description": "What it is called"}},
		{"price", map[string]any{"type": "number", "format": "numeric", "default": 0.0}},
		{"tags", map[string]any{"type": "array", "format": "text[]", "items": map[string]any{"type": "string"}}},
		{"data", map[string]any{"format": "jsonb", "default": map[string]any{"a": 1.0}}},
		{"status", map[string]any{"type": "string", "format": "item_status", "enum": []any{"new", "sold"}, "default": "new"}},
		{"created", map[string]any{"type": "string", "format": "timestamp with time zone", "default": "now()"}},
		{"on_sale", map[string]any{"type": "boolean", "format": "boolean", "default": false}},
	} {
		t.Run(tc.column+" is described as PostgREST describes it", func(t *testing.T) {
			if got := at(t, props, tc.column); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v\nwant %#v", got, tc.want)
			}
		})
	}
	t.Run("the table's comment is the definition's description", func(t *testing.T) {
		if got := at(t, doc, "definitions", "items", "description"); got != "Things for sale\n\nEvery row is one article." {
			t.Errorf("description %q", got)
		}
	})
	t.Run("NOT NULL columns without a default are required", func(t *testing.T) {
		if got := at(t, doc, "definitions", "items", "required"); !reflect.DeepEqual(got, []any{"name"}) {
			t.Errorf("required %v", got)
		}
		if got := at(t, doc, "definitions", "orders", "required"); !reflect.DeepEqual(got, []any{"id", "item_id"}) {
			t.Errorf("required %v", got)
		}
	})
	t.Run("a foreign key is noted after the column's comment", func(t *testing.T) {
		want := "The article\n\nNote:\nThis is a Foreign Key to `items.id`.<fk table='items' column='id'/>"
		if got := at(t, doc, "definitions", "orders", "properties", "item_id", "description"); got != want {
			t.Errorf("description %q, want %q", got, want)
		}
	})
	t.Run("a view's inferred primary key is noted", func(t *testing.T) {
		if got := at(t, doc, "definitions", "cheap items", "properties", "id", "description"); got != "Note:\nThis is a Primary Key.<pk/>" {
			t.Errorf("description %q", got)
		}
		if has(at(t, doc, "definitions", "cheap items"), "required") {
			t.Error("a view's nullable columns are required")
		}
	})
}

func TestOpenAPIPathsOfferTheOperationsARelationTakes(t *testing.T) {
	doc, _ := build(t, testCache(), Options{})
	ops := func(path string) []string {
		var got []string
		for _, m := range []string{"get", "post", "patch", "delete", "put"} {
			if has(at(t, doc, "paths", path), m) {
				got = append(got, m)
			}
		}
		return got
	}
	if got := ops("/items"); !slices.Equal(got, []string{"get", "post", "patch", "delete"}) {
		t.Errorf("/items offers %v", got)
	}
	if got := ops("/cheap items"); !slices.Equal(got, []string{"get"}) {
		t.Errorf("a view that takes no writes offers %v", got)
	}

	t.Run("GET refers to a row filter per column and the read parameters", func(t *testing.T) {
		var refs []string
		for _, p := range at(t, doc, "paths", "/items", "get", "parameters").([]any) {
			refs = append(refs, p.(map[string]any)["$ref"].(string))
		}
		want := []string{
			"#/parameters/rowFilter.items.id", "#/parameters/rowFilter.items.name", "#/parameters/rowFilter.items.price",
			"#/parameters/rowFilter.items.tags", "#/parameters/rowFilter.items.data", "#/parameters/rowFilter.items.status",
			"#/parameters/rowFilter.items.created", "#/parameters/rowFilter.items.on_sale",
			"#/parameters/select", "#/parameters/order", "#/parameters/range", "#/parameters/rangeUnit",
			"#/parameters/offset", "#/parameters/limit", "#/parameters/preferCount",
		}
		if !slices.Equal(refs, want) {
			t.Errorf("parameters\n%v\nwant\n%v", refs, want)
		}
	})
	t.Run("a column named like a reserved query key gets no row filter", func(t *testing.T) {
		if has(at(t, doc, "parameters"), "rowFilter.items.order") {
			t.Error("rowFilter.items.order exists")
		}
	})
	t.Run("GET answers an array of the definition", func(t *testing.T) {
		want := map[string]any{"type": "array", "items": map[string]any{"$ref": "#/definitions/items"}}
		if got := at(t, doc, "paths", "/items", "get", "responses", "200", "schema"); !reflect.DeepEqual(got, want) {
			t.Errorf("schema %v", got)
		}
	})
	t.Run("the first line of the comment is the summary, the rest the description", func(t *testing.T) {
		get := at(t, doc, "paths", "/items", "get")
		if got := at(t, get, "summary"); got != "Things for sale" {
			t.Errorf("summary %q", got)
		}
		if got := at(t, get, "description"); got != "Every row is one article." {
			t.Errorf("description %q", got)
		}
		if got := at(t, get, "tags"); !reflect.DeepEqual(got, []any{"items"}) {
			t.Errorf("tags %v", got)
		}
	})
	t.Run("names are escaped in references", func(t *testing.T) {
		want := "#/definitions/cheap%20items"
		if got := at(t, doc, "paths", "/cheap items", "get", "responses", "200", "schema", "items", "$ref"); got != want {
			t.Errorf("$ref %v, want %s", got, want)
		}
	})
}

func TestOpenAPIFunctionPathsTakeTheirArguments(t *testing.T) {
	doc, _ := build(t, testCache(), Options{})
	t.Run("a stable function takes GET and POST", func(t *testing.T) {
		p := at(t, doc, "paths", "/rpc/add")
		if !has(p, "get") || !has(p, "post") {
			t.Fatalf("/rpc/add %v", p)
		}
		if got := at(t, p, "post", "summary"); got != "Adds" {
			t.Errorf("summary %q", got)
		}
		if got := at(t, p, "post", "tags"); !reflect.DeepEqual(got, []any{"(rpc) add"}) {
			t.Errorf("tags %v", got)
		}
	})
	t.Run("overloads share one path, described by the first", func(t *testing.T) {
		body := at(t, doc, "paths", "/rpc/add", "post", "parameters").([]any)[0]
		want := map[string]any{
			"name": "args", "in": "body", "required": true,
			"schema": map[string]any{
				"description": "Adds\nSums two numbers.", "type": "object",
				"properties": map[string]any{
					"a": map[string]any{"type": "integer", "format": "int32"},
					"b": map[string]any{"type": "integer", "format": "int32"},
				},
				"required": []any{"a"},
			},
		}
		if !reflect.DeepEqual(body, want) {
			t.Errorf("body parameter\n%#v\nwant\n%#v", body, want)
		}
	})
	t.Run("GET takes the arguments in the query string", func(t *testing.T) {
		params := at(t, doc, "paths", "/rpc/add", "get", "parameters").([]any)
		want := []any{
			map[string]any{"name": "a", "in": "query", "required": true, "type": "integer", "format": "int32"},
			map[string]any{"name": "b", "in": "query", "required": false, "type": "integer", "format": "int32"},
		}
		if !reflect.DeepEqual(params, want) {
			t.Errorf("parameters %#v", params)
		}
	})
	t.Run("a variadic argument repeats in the query string, JSON is text", func(t *testing.T) {
		params := at(t, doc, "paths", "/rpc/tally", "get", "parameters").([]any)
		want := []any{
			map[string]any{"name": "ids", "in": "query", "required": true, "type": "array",
				"items": map[string]any{"type": "integer", "format": "int32"}, "collectionFormat": "multi"},
			map[string]any{"name": "opts", "in": "query", "required": false, "type": "string", "format": "json"},
		}
		if !reflect.DeepEqual(params, want) {
			t.Errorf("parameters %#v", params)
		}
	})
	t.Run("a volatile function takes POST only", func(t *testing.T) {
		p := at(t, doc, "paths", "/rpc/touch")
		if has(p, "get") || !has(p, "post") {
			t.Errorf("/rpc/touch %v", p)
		}
	})
}

func TestOpenAPIFunctionUnnamedParametersAreNoArguments(t *testing.T) {
	cache := schemacache.Build(&schemacache.Catalog{
		Schemas: []string{"api"},
		Functions: []*schemacache.Function{{Schema: "api", Name: "echo", OID: 200, Volatility: 's',
			Params:  []schemacache.Param{{Type: "text"}, {Name: "n", Type: "integer"}},
			Returns: schemacache.Return{Type: "text"}}},
	})
	doc, _ := build(t, cache, Options{})
	body := at(t, doc, "paths", "/rpc/echo", "post", "parameters").([]any)[0]
	if got := at(t, body, "schema", "properties"); !reflect.DeepEqual(got, map[string]any{"n": map[string]any{"type": "integer", "format": "int32"}}) {
		t.Errorf("body properties %#v", got)
	}
	if got := at(t, body, "schema", "required"); !reflect.DeepEqual(got, []any{"n"}) {
		t.Errorf("body required %#v", got)
	}
	params := at(t, doc, "paths", "/rpc/echo", "get", "parameters").([]any)
	want := []any{map[string]any{"name": "n", "in": "query", "required": true, "type": "integer", "format": "int32"}}
	if !reflect.DeepEqual(params, want) {
		t.Errorf("query parameters %#v", params)
	}
}

func TestOpenAPIAccessLimitsTheDocumentToWhatTheRoleMayUse(t *testing.T) {
	access := &Access{
		Relations: map[string]RelationAccess{
			"items":  {Select: true, Update: true, Columns: []string{"id", "name"}},
			"orders": {Insert: true, Columns: []string{"id", "item_id"}},
		},
		Functions: map[uint32]bool{101: true},
	}
	doc, _ := build(t, testCache(), Options{Access: access})
	t.Run("a relation the role may not use is left out", func(t *testing.T) {
		if has(at(t, doc, "paths"), "/cheap items") || has(at(t, doc, "definitions"), "cheap items") {
			t.Error("cheap items is described")
		}
	})
	t.Run("operations follow the role's privileges", func(t *testing.T) {
		items := at(t, doc, "paths", "/items")
		if !has(items, "get") || !has(items, "patch") || has(items, "post") || has(items, "delete") {
			t.Errorf("/items %v", items)
		}
		orders := at(t, doc, "paths", "/orders")
		if has(orders, "get") || !has(orders, "post") {
			t.Errorf("/orders %v", orders)
		}
	})
	t.Run("only the columns the role may use are described", func(t *testing.T) {
		props := at(t, doc, "definitions", "items", "properties").(map[string]any)
		if len(props) != 2 || !has(props, "id") || !has(props, "name") {
			t.Errorf("properties %v", props)
		}
		if has(at(t, doc, "parameters"), "rowFilter.items.price") {
			t.Error("a row filter on a hidden column")
		}
	})
	t.Run("functions the role may not execute are left out", func(t *testing.T) {
		paths := at(t, doc, "paths")
		if has(paths, "/rpc/touch") || has(paths, "/rpc/tally") {
			t.Errorf("paths %v", paths)
		}
		body := at(t, doc, "paths", "/rpc/add", "post", "parameters").([]any)[0]
		if !has(at(t, body, "schema", "properties"), "x") {
			t.Errorf("the executable overload does not describe /rpc/add: %v", body)
		}
	})
	t.Run("no access at all leaves the root alone", func(t *testing.T) {
		doc, _ := build(t, testCache(), Options{Access: &Access{}})
		if paths := at(t, doc, "paths").(map[string]any); len(paths) != 1 {
			t.Errorf("paths %v", paths)
		}
	})
}

// TestOpenAPIReferencesResolve checks that every $ref names a member of
// the document.
func TestOpenAPIReferencesResolve(t *testing.T) {
	doc, _ := build(t, testCache(), Options{})
	var walk func(v any)
	n := 0
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k == "$ref" {
					n++
					resolve(t, doc, x.(string))
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	if n == 0 {
		t.Fatal("no reference found")
	}
}

func resolve(t *testing.T, doc map[string]any, r string) {
	t.Helper()
	frag, ok := strings.CutPrefix(r, "#/")
	if !ok {
		t.Errorf("%s is not local", r)
		return
	}
	var v any = doc
	for _, tok := range strings.Split(frag, "/") {
		tok, err := url.PathUnescape(tok)
		if err != nil {
			t.Errorf("%s: %v", r, err)
			return
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := v.(map[string]any)
		if !ok || m[tok] == nil {
			t.Errorf("%s does not resolve", r)
			return
		}
		v = m[tok]
	}
}

func TestServerFromProxyURI(t *testing.T) {
	for _, tc := range []struct {
		uri  string
		want Server
	}{
		{"https://api.example.com", Server{"https", "api.example.com:443", "/"}},
		{"http://api.example.com", Server{"http", "api.example.com:80", "/"}},
		{"https://api.example.com:8443/v1/api", Server{"https", "api.example.com:8443", "/v1/api"}},
		{"HTTPS://Example.com/", Server{"https", "Example.com:443", "/"}},
		{"http://[::1]:3000", Server{"http", "[::1]:3000", "/"}},
	} {
		t.Run(tc.uri+" is read as PostgREST reads it", func(t *testing.T) {
			got, err := ServerFromProxyURI(tc.uri)
			if err != nil || got != tc.want {
				t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	for _, uri := range []string{"ftp://example.com", "/relative", "http://", "::bad"} {
		t.Run(uri+" is refused", func(t *testing.T) {
			if _, err := ServerFromProxyURI(uri); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestBaseTypeNameDropsTypeModifiers(t *testing.T) {
	for in, want := range map[string]string{
		"character varying(40)":          "character varying",
		"numeric(10,2)[]":                "numeric[]",
		"timestamp(3) with time zone":    "timestamp with time zone",
		"text":                           "text",
		`"odd(name)"`:                    `"odd(name)"`,
		"bit varying(8)":                 "bit varying",
		"time(0) without time zone[]":    "time without time zone[]",
		"character varying(40)[]":        "character varying[]",
		"api.item_status":                "api.item_status",
		"interval second(3)":             "interval second",
		`"a(b"."c)d"(2)`:                 `"a(b"."c)d"`,
		"double precision":               "double precision",
		"timestamp(6) without time zone": "timestamp without time zone",
	} {
		if got := baseTypeName(in); got != want {
			t.Errorf("baseTypeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDefaultValueIsTheJSONAClientWouldGet(t *testing.T) {
	for _, tc := range []struct {
		typ, def, want string
	}{
		{"integer", "42", "42"},
		{"integer", "'-1'::integer", "-1"},
		{"integer", "nextval('s'::regclass)", ""},
		{"numeric", "1.50", "1.50"},
		{"numeric", "'NaN'::numeric", ""},
		{"text", "'it''s'::text", `"it's"`},
		{"character varying", "'a\"b'::character varying", `"a\"b"`},
		{"timestamp with time zone", "now()", `"now()"`},
		{"boolean", "true", "true"},
		{"boolean", "(1 = 1)", ""},
		{"jsonb", `'[1, 2]'::jsonb`, "[1, 2]"},
		{"jsonb", `'{'::jsonb`, ""},
		{"text[]", "'{}'::text[]", ""},
	} {
		if got := string(defaultValue(tc.typ, tc.def)); got != tc.want {
			t.Errorf("defaultValue(%q, %q) = %s, want %s", tc.typ, tc.def, got, tc.want)
		}
	}
}

// TestSwaggerFormatNamesIntegerWidths: PostgREST v16 writes the integer
// types as int32 and int64 and any other type by its name (OpenApiSpec
// "smallint to integer", "bigint to integer", "double_precision to number").
func TestSwaggerFormatNamesIntegerWidths(t *testing.T) {
	for pgType, want := range map[string]string{
		"smallint": "int32", "integer": "int32", "bigint": "int64",
		"numeric": "numeric", "real": "real", "double precision": "double precision",
		"integer[]": "integer[]", "bigint[]": "bigint[]", "text": "text",
	} {
		if got := swaggerFormat(pgType); got != want {
			t.Errorf("swaggerFormat(%q) = %q, want %q", pgType, got, want)
		}
	}
}
