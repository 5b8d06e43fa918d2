package jwtauth

import "testing"

// The byte forms every request with the same token shares have no room
// past their end, so an append to one copies it and cannot write where
// another request reads.
func TestSharedByteFormsAreSealed(t *testing.T) {
	id := Identity{Role: "webuser", ClaimsJSON: `{"role":"webuser"}`}.withBytes()
	for name, b := range map[string][]byte{"RoleBytes": id.RoleBytes(), "ClaimsJSONBytes": id.ClaimsJSONBytes()} {
		if cap(b) != len(b) {
			t.Errorf("%s: capacity %d past a length of %d", name, cap(b), len(b))
		}
	}
	if got := append(id.RoleBytes(), 'x'); string(id.RoleBytes()) != "webuser" || string(got) != "webuserx" {
		t.Errorf("after an append: shared %q, appended %q", id.RoleBytes(), got)
	}
}
