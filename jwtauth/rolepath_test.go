package jwtauth

import (
	"reflect"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

func TestParseRolePath(t *testing.T) {
	key := func(k string) pathStep { return pathStep{key: k} }
	idx := func(i int) pathStep { return pathStep{index: i, isIndex: true} }
	tests := []struct {
		name string
		path string
		want rolePath
	}{
		{"a PostgREST member is one step", ".role", rolePath{key("role")}},
		{"PostgREST members chain", ".app_metadata.role", rolePath{key("app_metadata"), key("role")}},
		{"a PostgREST index follows a member", ".roles[0]", rolePath{key("roles"), idx(0)}},
		{"a PostgREST quoted key keeps dots and slashes", `."https://example.com/role"`, rolePath{key("https://example.com/role")}},
		{"a PostgREST quoted key keeps backslashes as they are", `."a\b"`, rolePath{key(`a\b`)}},
		{"a PostgREST name takes _, $ and @", ".$x_y@z", rolePath{key("$x_y@z")}},
		{"a JSONPath member is one step", "$.role", rolePath{key("role")}},
		{"JSONPath members chain", "$.app_metadata.role", rolePath{key("app_metadata"), key("role")}},
		{"a JSONPath index follows a member", "$.roles[0]", rolePath{key("roles"), idx(0)}},
		{"a JSONPath negative index counts from the end", "$.roles[-1]", rolePath{key("roles"), idx(-1)}},
		{"a JSONPath single-quoted key keeps dots and slashes", "$['https://example.com/role']", rolePath{key("https://example.com/role")}},
		{"a JSONPath double-quoted key is read", `$["a.b"].c`, rolePath{key("a.b"), key("c")}},
		{"JSONPath escapes are decoded", `$['it\'s \u00e9\ud83d\ude00']`, rolePath{key("it's é😀")}},
		{"JSONPath control and slash escapes are decoded", `$["\b\f\n\r\t\/\\\""]`, rolePath{key("\b\f\n\r\t/\\\"")}},
		{"a JSONPath index may follow a quoted key", `$['roles'][2]`, rolePath{key("roles"), idx(2)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseRolePath(tc.path)
			if err != nil {
				t.Fatalf("parseRolePath(%q): %v", tc.path, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("parseRolePath(%q) = %+v, want %+v", tc.path, got, tc.want)
			}
		})
	}
}

func TestParseRolePathRefusesBadPaths(t *testing.T) {
	for _, path := range []string{
		"role", "$", ".", "$role", "..role", ".role.", ".roles[", ".roles[x]", ".roles[1", `."open`,
		`$['open`, `$['a'`, `$['a\`, `$['\q']`, `$['\u12']`, ".a b", "[0]", ".roles[?(@ == 'x')]",
	} {
		t.Run("the path "+path+" is refused", func(t *testing.T) {
			if p, err := parseRolePath(path); err == nil {
				t.Fatalf("parseRolePath(%q) = %+v, want an error", path, p)
			}
		})
	}
}

func TestRoleClaimKey(t *testing.T) {
	claims := jwt.MapClaims{
		"role":                     "top",
		"app_metadata":             map[string]any{"role": "nested"},
		"roles":                    []any{"first", "second", "last"},
		"https://example.com/role": "namespaced",
		"deep":                     map[string]any{"list": []any{map[string]any{"r": "deepest"}}},
		"n":                        7,
	}
	token := "Bearer " + hs256(t, claims)
	tests := []struct {
		name string
		key  string
		want outcome
	}{
		{"the default key reads role", "", ok("top", true)},
		{"a PostgREST member path reads a nested role", ".app_metadata.role", ok("nested", true)},
		{"a PostgREST index path reads an array element", ".roles[1]", ok("second", true)},
		{"a PostgREST quoted key reads a namespaced claim", `."https://example.com/role"`, ok("namespaced", true)},
		{"a JSONPath member path reads role", "$.role", ok("top", true)},
		{"a JSONPath member path reads a nested role", "$.app_metadata.role", ok("nested", true)},
		{"a JSONPath index path reads an array element", "$.roles[0]", ok("first", true)},
		{"a JSONPath negative index reads from the end", "$.roles[-1]", ok("last", true)},
		{"a JSONPath bracket key reads a namespaced claim", "$['https://example.com/role']", ok("namespaced", true)},
		{"a path through arrays and objects reads a deep role", ".deep.list[0].r", ok("deepest", true)},
		{"a missing member gives the anonymous role", ".nope", ok("web_anon", false)},
		{"an index past the end gives the anonymous role", ".roles[9]", ok("web_anon", false)},
		{"an index into an object gives the anonymous role", ".app_metadata[0]", ok("web_anon", false)},
		{"a member of a string gives the anonymous role", ".role.x", ok("web_anon", false)},
		{"a path to a number is refused", ".n", fails("PGRST303", msgRoleNotString)},
		{"a path to an object is refused", ".app_metadata", fails("PGRST303", msgRoleNotString)},
		{"a path to an array is refused", "$.roles", fails("PGRST303", msgRoleNotString)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newVerifier(t, Config{Secret: testSecret, AnonRole: "web_anon", RoleClaimKey: tc.key})
			id, err := v.Authenticate(token)
			expect(t, id, err, tc.want)
		})
	}
}
