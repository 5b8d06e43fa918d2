package sqltext

import "testing"

// Qualified writes both names in one string; it must say what quoting
// each part with Ident says.
func TestQualifiedIsTwoIdents(t *testing.T) {
	for _, c := range [][2]string{
		{"api", "items"}, {"", ""}, {`a"b`, `"`}, {"s\x00x", "t\x00"}, {"Ünï", "cödé"}, {`""`, "x.y"},
	} {
		if got, want := Qualified(c[0], c[1]).String(), Ident(c[0]).String()+"."+Ident(c[1]).String(); got != want {
			t.Errorf("Qualified(%q, %q) = %s, want %s", c[0], c[1], got, want)
		}
	}
}
