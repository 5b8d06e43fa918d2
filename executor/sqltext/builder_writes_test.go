package sqltext

import "testing"

// Each Builder write appends exactly what its counterpart function returns.
func TestBuilderWritesMatchTheirFunctions(t *testing.T) {
	names := []string{"", "items", `we"ird`, `""`, "nul\x00name", "spaced name", "ünïcode", `a"b"c`}
	for _, n := range names {
		var b Builder
		b.Ident(n)
		if got, want := b.SQL().String(), Ident(n).String(); got != want {
			t.Errorf("Builder.Ident(%q) = %q, Ident = %q", n, got, want)
		}
		for _, m := range names {
			var b Builder
			b.Qualified(n, m)
			if got, want := b.SQL().String(), Qualified(n, m).String(); got != want {
				t.Errorf("Builder.Qualified(%q, %q) = %q, Qualified = %q", n, m, got, want)
			}
		}
	}
	for _, schema := range []string{"", "pg_catalog", `s"q`} {
		for dims := range 3 {
			var b Builder
			b.QualifiedType(schema, `ty"pe`, dims)
			if got, want := b.SQL().String(), QualifiedType(schema, `ty"pe`, dims).SQL().String(); got != want {
				t.Errorf("Builder.QualifiedType(%q, dims %d) = %q, QualifiedType = %q", schema, dims, got, want)
			}
		}
	}
	for _, n := range []int{1, 2, 9, 10, 64, 65, 99, 100, 1000, 65535} {
		var b Builder
		b.Param(n)
		want := "$" + itoa(n)
		if got := b.SQL().String(); got != want {
			t.Errorf("Builder.Param(%d) = %q, want %q", n, got, want)
		}
		if got := Param(n).String(); got != want {
			t.Errorf("Param(%d) = %q, want %q", n, got, want)
		}
	}
	if got := Const("abc").Len(); got != 3 {
		t.Errorf("Len = %d, want 3", got)
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
