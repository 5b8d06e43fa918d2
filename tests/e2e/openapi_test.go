package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// The API root: GET / describes the exposed schema as OpenAPI 2.0, per
// openapi_mode, at openapi_server_proxy_uri. The fixtures are the schema
// oa of testdata/30_openapi.sql, exposed beside api and chosen with
// Accept-Profile, and, for the cases of PostgREST's spec, PostgREST's own
// fixture (spec_fixture_test.go). Every document served here is also checked with a real
// Swagger 2.0 validator (tests/openapi).

// oaServer serves api and oa with extra directives.
func oaServer(t *testing.T, lines ...string) *server {
	t.Helper()
	return startServer(t, append([]string{"db_schemas api oa"}, lines...)...)
}

// oaDoc fetches the description of oa, checks the response and validates
// the document.
func oaDoc(t *testing.T, s *server, headers ...string) map[string]any {
	t.Helper()
	return describe(t, s, "oa", headers...)
}

// describe fetches the description of schema, or of the one an
// Accept-Profile in headers names, checks the response and validates the
// document.
func describe(t *testing.T, s *server, schema string, headers ...string) map[string]any {
	t.Helper()
	if !slices.Contains(headers, "Accept-Profile") {
		// schema unless the caller names another: a header named twice is sent twice.
		headers = append([]string{"Accept-Profile", schema}, headers...)
	}
	res := s.get(t, "/", headers...)
	if res.Status != http.StatusOK {
		t.Fatalf("GET / is %d: %s", res.Status, res.Body)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/openapi+json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	validateOpenAPI(t, res.Body)
	doc, ok := res.JSON(t).(map[string]any)
	if !ok {
		t.Fatalf("document is not an object: %s", res.Body)
	}
	return doc
}

// oaAt walks doc along keys; nil when a key is missing.
func oaAt(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// oaKeys lists an object's keys, sorted.
func oaKeys(v any) []string {
	m, _ := v.(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// oaMethods lists the operations of a path item, in a fixed order.
func oaMethods(doc map[string]any, path string) []string {
	var ms []string
	for _, m := range []string{"get", "post", "put", "patch", "delete"} {
		if oaAt(doc, "paths", path, m) != nil {
			ms = append(ms, m)
		}
	}
	return ms
}

func TestOpenAPIModeDisabledHidesTheRoot(t *testing.T) {
	s := oaServer(t, "openapi_mode disabled")
	t.Run("GET / is 404 PGRST126", func(t *testing.T) {
		s.get(t, "/").expectError(t, 404, "PGRST126")
	})
	t.Run("a token does not change that", func(t *testing.T) {
		s.get(t, "/", bearer(token(t, jwt.MapClaims{"role": "webuser"}))...).expectError(t, 404, "PGRST126")
	})
}

func TestOpenAPIFollowPrivilegesShowsWhatTheRoleMayUse(t *testing.T) {
	s := oaServer(t) // follow-privileges is the default
	anon := oaDoc(t, s)
	user := oaDoc(t, s, bearer(token(t, jwt.MapClaims{"role": "webuser"}))...)

	t.Run("a table the anonymous role cannot read is hidden from it", func(t *testing.T) {
		if oaAt(anon, "paths", "/oa_secrets") != nil || oaAt(anon, "definitions", "oa_secrets") != nil {
			t.Errorf("oa_secrets is described to web_anon: paths %v", oaKeys(anon["paths"]))
		}
	})
	t.Run("a role that may use the table sees it with every operation", func(t *testing.T) {
		if got := oaMethods(user, "/oa_secrets"); !slices.Equal(got, []string{"get", "post", "patch", "delete"}) {
			t.Errorf("/oa_secrets offers webuser %v", got)
		}
		if got := oaAt(user, "definitions", "oa_secrets", "description"); got != "Only webuser may see these" {
			t.Errorf("description %v", got)
		}
	})
	t.Run("operations follow the role's privileges", func(t *testing.T) {
		if got := oaMethods(anon, "/oa_items"); !slices.Equal(got, []string{"get"}) {
			t.Errorf("/oa_items offers web_anon %v", got)
		}
		if got := oaMethods(user, "/oa_items"); !slices.Equal(got, []string{"get", "post", "patch"}) {
			t.Errorf("/oa_items offers webuser %v", got)
		}
	})
	t.Run("columns follow column privileges", func(t *testing.T) {
		if got := oaKeys(oaAt(anon, "definitions", "oa_people", "properties")); !slices.Equal(got, []string{"id", "name"}) {
			t.Errorf("web_anon sees oa_people columns %v", got)
		}
		if got := oaKeys(oaAt(user, "definitions", "oa_people", "properties")); !slices.Equal(got, []string{"id", "name", "ssn"}) {
			t.Errorf("webuser sees oa_people columns %v", got)
		}
		if oaAt(anon, "parameters", "rowFilter.oa_people.ssn") != nil {
			t.Error("web_anon gets a row filter on a column it cannot read")
		}
	})
	t.Run("a function without EXECUTE is hidden", func(t *testing.T) {
		if oaAt(anon, "paths", "/rpc/oa_hidden") != nil {
			t.Error("/rpc/oa_hidden is described to web_anon")
		}
		if got := oaMethods(user, "/rpc/oa_hidden"); !slices.Equal(got, []string{"get", "post"}) {
			t.Errorf("/rpc/oa_hidden offers webuser %v", got)
		}
	})
	t.Run("a role without usage on the schema sees the root only", func(t *testing.T) {
		doc := oaDoc(t, s, bearer(token(t, jwt.MapClaims{"role": "oa_outsider"}))...)
		if got := oaKeys(doc["paths"]); !slices.Equal(got, []string{"/"}) {
			t.Errorf("paths %v", got)
		}
	})
	t.Run("the request authenticates as any other: a bad token is 401", func(t *testing.T) {
		s.get(t, "/", "Authorization", "Bearer not.a.token").expectError(t, 401, "PGRST301")
	})
}

func TestOpenAPIIgnorePrivilegesShowsEverything(t *testing.T) {
	s := oaServer(t, "openapi_mode ignore-privileges")
	anon := oaDoc(t, s)
	for _, path := range []string{"/oa_items", "/oa_orders", "/oa_secrets", "/oa_people", "/oa_names", "/rpc/oa_add", "/rpc/oa_touch", "/rpc/oa_hidden"} {
		t.Run(path+" is described to the anonymous role", func(t *testing.T) {
			if oaAt(anon, "paths", path) == nil {
				t.Errorf("paths %v", oaKeys(anon["paths"]))
			}
		})
	}
	t.Run("operations follow what the relation takes", func(t *testing.T) {
		if got := oaMethods(anon, "/oa_secrets"); !slices.Equal(got, []string{"get", "post", "patch", "delete"}) {
			t.Errorf("/oa_secrets %v", got)
		}
		if got := oaMethods(anon, "/oa_names"); !slices.Equal(got, []string{"get"}) {
			t.Errorf("a DISTINCT view offers %v", got)
		}
	})
	t.Run("every column is described", func(t *testing.T) {
		if got := oaKeys(oaAt(anon, "definitions", "oa_people", "properties")); !slices.Equal(got, []string{"id", "name", "ssn"}) {
			t.Errorf("oa_people columns %v", got)
		}
	})
	t.Run("the whole api schema, every fixture of this package, is a valid document", func(t *testing.T) {
		res := s.get(t, "/")
		if res.Status != http.StatusOK {
			t.Fatalf("GET / is %d: %s", res.Status, res.Body)
		}
		validateOpenAPI(t, res.Body)
		doc := res.JSON(t)
		if oaAt(doc, "paths", "/oa_items") != nil {
			t.Error("the api schema's document describes oa")
		}
		if oaAt(doc, "paths", "/err_items") == nil {
			t.Errorf("api's err_items is not described: %v", oaKeys(oaAt(doc, "paths")))
		}
	})
}

func TestOpenAPIDocumentDescribesColumnsAndFunctions(t *testing.T) {
	s := oaServer(t)
	doc := oaDoc(t, s)
	t.Run("the schema's comment is the title and description", func(t *testing.T) {
		if got := oaAt(doc, "info", "title"); got != "Shop API" {
			t.Errorf("title %v", got)
		}
		if got := oaAt(doc, "info", "description"); got != "The objects the API description tests describe." {
			t.Errorf("description %v", got)
		}
		if got := oaAt(doc, "swagger"); got != "2.0" {
			t.Errorf("swagger %v", got)
		}
	})
	props := oaAt(doc, "definitions", "oa_items", "properties")
	for _, tc := range []struct {
		column string
		want   map[string]any
	}{
		{"id", map[string]any{"type": "integer", "format": "int32", "description": "Note:\nThis is a Primary Key.<pk/>"}},
		{"name", map[string]any{"type": "string", "format": "character varying", "maxLength": 40.0,
			"description": "What the article is called"}},
		{"price", map[string]any{"type": "number", "format": "numeric", "default": 0.0, "description": "Price in euros"}},
		{"status", map[string]any{"type": "string", "format": "oa.oa_status", "enum": []any{"new", "sold"}, "default": "new"}},
		{"tags", map[string]any{"type": "array", "format": "text[]", "items": map[string]any{"type": "string"}}},
		{"details", map[string]any{"format": "jsonb"}},
		{"created", map[string]any{"type": "string", "format": "timestamp with time zone", "default": "now()"}},
	} {
		t.Run("column "+tc.column+" has its type and comment", func(t *testing.T) {
			if got := oaAt(props, tc.column); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
	t.Run("NOT NULL columns without a default are required", func(t *testing.T) {
		if got := oaAt(doc, "definitions", "oa_items", "required"); !reflect.DeepEqual(got, []any{"name"}) {
			t.Errorf("required %v", got)
		}
	})
	t.Run("a foreign key is noted", func(t *testing.T) {
		want := "Note:\nThis is a Foreign Key to `oa_items.id`.<fk table='oa_items' column='id'/>"
		if got := oaAt(doc, "definitions", "oa_orders", "properties", "item_id", "description"); got != want {
			t.Errorf("description %q", got)
		}
	})
	t.Run("the table's comment is the summary and description of its operations", func(t *testing.T) {
		if got := oaAt(doc, "paths", "/oa_items", "get", "summary"); got != "Things for sale" {
			t.Errorf("summary %v", got)
		}
		if got := oaAt(doc, "paths", "/oa_items", "get", "description"); got != "Every row is one article." {
			t.Errorf("description %v", got)
		}
	})
	t.Run("a function takes its arguments as a body and, unless volatile, in the query", func(t *testing.T) {
		if got := oaMethods(doc, "/rpc/oa_add"); !slices.Equal(got, []string{"get", "post"}) {
			t.Errorf("/rpc/oa_add offers %v", got)
		}
		if got := oaMethods(doc, "/rpc/oa_touch"); !slices.Equal(got, []string{"post"}) {
			t.Errorf("/rpc/oa_touch offers %v", got)
		}
		body := oaAt(doc, "paths", "/rpc/oa_add", "post", "parameters").([]any)[0]
		want := map[string]any{"name": "args", "in": "body", "required": true, "schema": map[string]any{
			"description": "Adds two numbers\nReturns a + b.", "type": "object", "required": []any{"a"},
			"properties": map[string]any{
				"a": map[string]any{"type": "integer", "format": "int32"},
				"b": map[string]any{"type": "integer", "format": "int32"},
			}}}
		if !reflect.DeepEqual(body, want) {
			t.Errorf("body parameter %#v", body)
		}
		arr := oaAt(doc, "paths", "/rpc/oa_touch", "post", "parameters").([]any)[0]
		if got := oaAt(arr, "schema", "properties", "ids"); !reflect.DeepEqual(got,
			map[string]any{"type": "array", "format": "integer[]", "items": map[string]any{"type": "integer"}}) {
			t.Errorf("ids %#v", got)
		}
	})
}

func TestOpenAPIServerAddress(t *testing.T) {
	t.Run("openapi_server_proxy_uri gives host, basePath and schemes", func(t *testing.T) {
		s := oaServer(t, "openapi_server_proxy_uri https://api.example.com:8443/shop/v1")
		doc := oaDoc(t, s)
		if got := oaAt(doc, "host"); got != "api.example.com:8443" {
			t.Errorf("host %v", got)
		}
		if got := oaAt(doc, "basePath"); got != "/shop/v1" {
			t.Errorf("basePath %v", got)
		}
		if got := oaAt(doc, "schemes"); !reflect.DeepEqual(got, []any{"https"}) {
			t.Errorf("schemes %v", got)
		}
	})
	t.Run("a proxy URI without a port names the scheme's", func(t *testing.T) {
		doc := oaDoc(t, oaServer(t, "openapi_server_proxy_uri http://example.com"))
		if got := oaAt(doc, "host"); got != "example.com:80" {
			t.Errorf("host %v", got)
		}
		if got := oaAt(doc, "basePath"); got != "/" {
			t.Errorf("basePath %v", got)
		}
	})
	t.Run("without it the request's host is named, at /", func(t *testing.T) {
		s := oaServer(t)
		doc := oaDoc(t, s)
		if got := oaAt(doc, "host"); got != strings.TrimPrefix(s.URL, "http://") {
			t.Errorf("host %v, want %s", got, s.URL)
		}
		if got := oaAt(doc, "basePath"); got != "/" {
			t.Errorf("basePath %v", got)
		}
		if got := oaAt(doc, "schemes"); !reflect.DeepEqual(got, []any{"http"}) {
			t.Errorf("schemes %v", got)
		}
	})
}

func TestOpenAPIRootNegotiationAndHEAD(t *testing.T) {
	s := oaServer(t)
	for _, accept := range []string{"application/openapi+json", "application/json", "*/*", "application/*", "text/csv, application/json;q=0.5"} {
		t.Run("Accept: "+accept+" gets the document", func(t *testing.T) {
			res := s.get(t, "/", "Accept", accept)
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/openapi+json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
	for _, accept := range []string{"text/csv", "application/vnd.pgrst.object+json", "text/html"} {
		t.Run("Accept: "+accept+" is 406 PGRST107", func(t *testing.T) {
			s.get(t, "/", "Accept", accept).expectError(t, http.StatusNotAcceptable, "PGRST107")
		})
	}
	t.Run("HEAD / has GET's headers but Content-Length, and no body", func(t *testing.T) {
		get := s.get(t, "/")
		head := s.do(t, http.MethodHead, "/", "")
		if head.Status != http.StatusOK || len(head.Body) != 0 {
			t.Fatalf("HEAD / is %d with %d bytes", head.Status, len(head.Body))
		}
		for _, h := range []string{"Content-Type", "Content-Profile"} {
			if head.Header.Get(h) != get.Header.Get(h) {
				t.Errorf("%s: HEAD %q, GET %q", h, head.Header.Get(h), get.Header.Get(h))
			}
		}
		// As from PostgREST, which does not build the document for HEAD.
		if cl := head.Header.Values("Content-Length"); len(cl) > 0 {
			t.Errorf("Content-Length %q, want none", cl)
		}
	})
	t.Run("a profile names the schema described", func(t *testing.T) {
		res := s.get(t, "/", "Accept-Profile", "oa")
		if got := res.Header.Get("Content-Profile"); got != "oa" {
			t.Errorf("Content-Profile %q", got)
		}
	})
}

func TestOpenAPIOptionsAnswersWithAllow(t *testing.T) {
	s := oaServer(t)
	for _, tc := range []struct{ path, want string }{
		{"/oa_items", "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE"},
		{"/oa_names", "OPTIONS,GET,HEAD"},
		{"/rpc/oa_add", "OPTIONS,GET,HEAD,POST"},
	} {
		t.Run("OPTIONS "+tc.path+" allows "+tc.want, func(t *testing.T) {
			res := s.do(t, http.MethodOptions, tc.path, "", "Content-Profile", "oa")
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			if got := res.Header.Get("Allow"); got != tc.want {
				t.Errorf("Allow %q, want %q", got, tc.want)
			}
		})
	}
}

// The validator: tests/openapi, run with node. Its packages are installed
// with npm ci the first time they are missing; a failure to install them
// fails the test rather than skipping the validation.
var (
	validatorOnce sync.Once
	validatorErr  error
	validatorDir  string
)

func openAPIValidator(t *testing.T) string {
	t.Helper()
	validatorOnce.Do(func() {
		dir, err := filepath.Abs(filepath.Join("..", "openapi"))
		if err != nil {
			validatorErr = err
			return
		}
		validatorDir = dir
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@apidevtools", "swagger-parser")); err == nil {
			return
		}
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			validatorErr = fmt.Errorf("npm ci in %s: %v\n%s", dir, err, out)
		}
	})
	if validatorErr != nil {
		t.Fatalf("the OpenAPI validator is not installed: %v", validatorErr)
	}
	return validatorDir
}

// validateOpenAPI fails t when the validator rejects doc.
func validateOpenAPI(t *testing.T, doc []byte) {
	t.Helper()
	dir := openAPIValidator(t)
	cmd := exec.Command("node", filepath.Join(dir, "validate.mjs"))
	cmd.Stdin = bytes.NewReader(doc)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var pretty bytes.Buffer
		if json.Indent(&pretty, doc, "", "  ") != nil {
			pretty.Write(doc)
		}
		t.Fatalf("the OpenAPI validator rejects the document (%v):\n%s%s\ndocument:\n%s", err, stderr.String(), stdout.String(), pretty.String())
	}
}
