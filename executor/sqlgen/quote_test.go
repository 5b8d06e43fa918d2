package sqlgen

import "testing"

func TestQuoteIdent(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a plain name is wrapped in double quotes", "items", `"items"`},
		{"an inner double quote is doubled", `a"b`, `"a""b"`},
		{"an injection attempt stays one identifier", `x"; drop table t; --`, `"x""; drop table t; --"`},
		{"a NUL byte is dropped", "a\x00b", `"ab"`},
		{"case and spaces are kept", "My Table", `"My Table"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := QuoteIdent(tt.in); got != tt.want {
				t.Errorf("QuoteIdent(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestQualifiedName(t *testing.T) {
	if got, want := QualifiedName("api", `t"x`), `"api"."t""x"`; got != want {
		t.Errorf("QualifiedName = %s, want %s", got, want)
	}
}
