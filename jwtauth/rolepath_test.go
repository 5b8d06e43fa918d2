package jwtauth

import (
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// A key is a JSONPath query when it parses as one, else the deprecated
// syntax; the deprecated ones are shown as PostgREST's warning shows them
// (PostgREST's test/io: jspath-str-op-dump*.config, test_config.py).
func TestParseRoleClaimKeyTellsTheSyntaxApart(t *testing.T) {
	tests := []struct {
		key string
		// dump is the deprecated key as the warning shows it; "" for a
		// JSONPath query.
		dump string
	}{
		{"$.role", ""},
		{"$.postgrest.roles[?(@ == 'author')]", ""},
		{"$.postgrest.roles[?search(@, '^au')]", ""},
		{`$["https://www.example.com/roles"][0].value`, ""},
		{"$.customObject.manyRoles[1]", ""},
		{"$..role", ""},
		{"$", ""},
		{".roles.user_role", `."roles"."user_role"`},
		{".again.deprecated.syntax", `."again"."deprecated"."syntax"`},
		{`.roles[?(@ == "role1")]`, `."roles"[?(@ == "role1")]`},
		{`.roles[?(@ != "role1")]`, `."roles"[?(@ != "role1")]`},
		{`.roles[?(@ ^== "role1")]`, `."roles"[?(@ ^== "role1")]`},
		{`.roles[?(@ ==^ "role1")]`, `."roles"[?(@ ==^ "role1")]`},
		{`.roles[?(@ *== "role1")]`, `."roles"[?(@ *== "role1")]`},
		{`.roles[?(@==^"x")]`, `."roles"[?(@ ==^ "x")]`},
		{`."https://www.example.com/roles"[0].value`, `."https://www.example.com/roles"[0]."value"`},
		{".$x_y@z", `."$x_y@z"`},
		{".rôle[2]", `."r\244le"[2]`},
		{`."é1"`, `."\233\&1"`},
		{`."a\b"`, `."a\\b"`},
		{"[0]", "[0]"},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			k, err := parseRoleClaimKey(tc.key)
			if err != nil {
				t.Fatalf("parseRoleClaimKey(%q): %v", tc.key, err)
			}
			if deprecated := k.path == nil; deprecated != (tc.dump != "") {
				t.Fatalf("deprecated %v, want %v", deprecated, tc.dump != "")
			}
			if tc.dump != "" && k.deprecated.String() != tc.dump {
				t.Errorf("shown as %s, want %s", k.deprecated.String(), tc.dump)
			}
		})
	}
}

// The keys PostgREST refuses at start (its test/io fixtures
// invalidroleclaimkeys and deprecatedinvalidroleclaimkeys), and what
// neither of its parsers reads: a function other than search(), a filter
// that does not end a deprecated key, a negative deprecated index.
func TestParseRoleClaimKeyRefusesBadKeys(t *testing.T) {
	for _, key := range []string{
		"$.my_role;;domain", "@@.role.other",
		"role.other", ".role##", ".my_role;;domain", ".#$$%&$%/", "1234", ".role[?(@ =)]",
		"", ".", "..role", ".roles[", ".roles[x]", ".roles[-1]", `."open`,
		`.roles[?(@ == "x")].more`, `.roles[?(@ == 'x')]`, `.roles[?(x == "x")]`,
		"$.roles[?length(@) > 2]", "$.roles[?match(@, 'a.*')]", "$.roles[?count(@.*) == 1]",
		"$.roles[?value(@.a) == 'x']", `$.roles[?search(@, "^a") && length(@) == 2]`,
	} {
		t.Run("the key "+key+" is refused", func(t *testing.T) {
			if k, err := parseRoleClaimKey(key); err == nil {
				t.Fatalf("parseRoleClaimKey(%q) = %+v, want an error", key, k)
			}
		})
	}
	t.Run("a function's name in a string is no call", func(t *testing.T) {
		if _, err := parseRoleClaimKey(`$.roles[?search(@, "length(")]`); err != nil {
			t.Fatal(err)
		}
	})
}

// The role each key finds in the claims: PostgREST's test/io fixtures
// roleclaims and deprecatedroleclaims (a 200 there is the role found, a
// 401 the anonymous role), its documented examples, and pgrest's own
// refusal of a role that is no string.
func TestRoleClaimKey(t *testing.T) {
	claims := jwt.MapClaims{
		"role":                          "top",
		"postgrest":                     map[string]any{"a_role": "postgrest_test_author", "roles": []any{"other", "author"}},
		"customObject":                  map[string]any{"manyRoles": []any{"other", "postgrest_test_author"}},
		"https://www.example.com/roles": []any{map[string]any{"value": "postgrest_test_author"}},
		"https://www.example.com/role":  map[string]any{"key": "author"},
		"myDomain":                      []any{"other", "postgrest_test_author"},
		"realm_access":                  map[string]any{"roles": []any{"other", "postgrest_test_author"}},
		"mixed":                         []any{7, map[string]any{"k": "v"}, "postgrest_test_author"},
		"objects":                       []any{map[string]any{"obj_key": "obj_value"}},
		"n":                             7,
	}
	token := "Bearer " + hs256(t, claims)
	author := ok("postgrest_test_author", true)
	anon := ok("web_anon", false)
	tests := []struct {
		key  string
		want outcome
	}{
		{"", ok("top", true)},
		{"$.role", ok("top", true)},
		{"$.postgrest.a_role", author},
		{"$.customObject.manyRoles[1]", author},
		{`$["https://www.example.com/roles"][0].value`, author},
		{"$['https://www.example.com/role'].key", ok("author", true)},
		{"$.myDomain[3]", anon},
		{"$.myDomain[-1]", author},
		{"$.myRole", anon},
		{`$.realm_access.roles[?(@ == "postgrest_test_author")]`, author},
		{`$.realm_access.roles[?(@ != "other")]`, author},
		{"$.postgrest.roles[1]", ok("author", true)},
		{"$.postgrest.roles[?(@ == 'author')]", ok("author", true)},
		{"$.postgrest.roles[?search(@, '^au')]", ok("author", true)},
		{"$.realm_access.roles[?search(@, 'test')]", author},
		{"$.realm_access.roles[*]", ok("other", true)},
		{"$..a_role", author},
		{"$.realm_access.roles[?(@ == 'nobody')]", anon},
		{".postgrest.a_role", author},
		{".customObject.manyRoles[1]", author},
		{`."https://www.example.com/roles"[0].value`, author},
		{".myDomain[3]", anon},
		{".myRole", anon},
		{`.realm_access.roles[?(@ == "postgrest_test_author")]`, author},
		{`.realm_access.roles[?(@ != "other")]`, author},
		{`.realm_access.roles[?(@ ^== "postgrest_te")]`, author},
		{`.realm_access.roles[?(@ ==^ "st_test_author")]`, author},
		{`.realm_access.roles[?(@ *== "_test_")]`, author},
		{`.objects[?(@ == "string")]`, anon},
		{`.mixed[?(@ != "x")]`, author},
		{".role.x", anon},
		{".postgrest[0]", anon},
		{"[0]", anon},
		{"$.n", fails("PGRST303", msgRoleNotString)},
		{"$.postgrest", fails("PGRST303", msgRoleNotString)},
		{"$.mixed[*]", fails("PGRST303", msgRoleNotString)},
		{".n", fails("PGRST303", msgRoleNotString)},
	}
	for _, tc := range tests {
		t.Run("the key "+tc.key, func(t *testing.T) {
			v := newVerifier(t, Config{Secret: testSecret, AnonRole: "web_anon", RoleClaimKey: tc.key})
			id, err := v.Authenticate(token)
			expect(t, id, err, tc.want)
		})
	}
}

func TestDeprecatedRoleClaimKey(t *testing.T) {
	for key, want := range map[string]string{"": "", "$.roles.user_role": "", ".roles.user_role": `."roles"."user_role"`} {
		v := newVerifier(t, Config{Secret: testSecret, RoleClaimKey: key})
		dump, deprecated := v.DeprecatedRoleClaimKey()
		if dump != want || deprecated != (want != "") {
			t.Errorf("key %q: DeprecatedRoleClaimKey() = %q, %v; want %q", key, dump, deprecated, want)
		}
	}
}
