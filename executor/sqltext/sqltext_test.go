package sqltext

import (
	"strings"
	"testing"
)

func TestIdentQuotesEveryNameAsOneIdentifier(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a plain name is wrapped in double quotes", "items", `"items"`},
		{"an inner double quote is doubled", `a"b`, `"a""b"`},
		{"an injection attempt stays one identifier", `x"; drop table t; --`, `"x""; drop table t; --"`},
		{"a NUL byte is dropped", "a\x00b", `"ab"`},
		{"case and spaces are kept", "My Table", `"My Table"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Ident(tt.in).String(); got != tt.want {
				t.Errorf("Ident(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
	if got, want := Qualified("api", `t"x`).String(), `"api"."t""x"`; got != want {
		t.Errorf("Qualified = %s, want %s", got, want)
	}
}

func TestFmtSubstitutesSQLValuesInOrder(t *testing.T) {
	got := Fmt("(%s)::%s = %s", Ident("a"), Const("integer"), Param(3)).String()
	if want := `("a")::integer = $3`; got != want {
		t.Errorf("Fmt = %s, want %s", got, want)
	}
	for _, tt := range []struct {
		name   string
		format constant
		args   []SQL
	}{
		{"more verbs than arguments", "%s %s", []SQL{Param(1)}},
		{"fewer verbs than arguments", "%s", []SQL{Param(1), Param(2)}},
	} {
		t.Run(tt.name+" panics", func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			Fmt(tt.format, tt.args...)
		})
	}
}

func TestJoinAndBuilder(t *testing.T) {
	if got := Join([]SQL{Ident("a"), Ident("b")}, ", ").String(); got != `"a", "b"` {
		t.Errorf("Join = %s", got)
	}
	if got := Join(nil, ", "); !got.IsEmpty() {
		t.Errorf("Join(nil) = %s", got)
	}
	var b Builder
	b.Const("select ")
	b.Write(Ident("x"), Const(" from "), Qualified("s", "t"))
	if got := b.SQL().String(); got != `select "x" from "s"."t"` {
		t.Errorf("Builder = %s", got)
	}
}

func TestParseTypeName(t *testing.T) {
	good := []struct{ in, want string }{
		{"text", `"text"`},
		{"TEXT", `"text"`},
		{"int", `integer`},
		{"int[]", `integer[]`},
		{"Int", `integer`},
		{"bigint", `bigint`},
		{"timestamptz", `"timestamptz"`},
		{"int4[][]", `"int4"[][]`},
		{"public.my_type", `"public"."my_type"`},
		{"api.Color[]", `"api"."color"[]`},
		{"_int4", `"_int4"`},
		{"public.int", `"public"."int"`},
		{"myschema.unknown", `"myschema"."unknown"`},
	}
	for _, tt := range good {
		t.Run(tt.in+" is a type name", func(t *testing.T) {
			got, err := ParseTypeName(tt.in)
			if err != nil || got.SQL().String() != tt.want {
				t.Errorf("ParseTypeName(%q) = %s, %v; want %s", tt.in, got.SQL(), err, tt.want)
			}
		})
	}
	bad := []struct {
		in   string
		want error
	}{
		{"", ErrTypeName},
		{"text array", ErrTypeName},
		{"text as x from t", ErrTypeName},
		{"text$1", ErrTypeName},
		{`text"`, ErrTypeName},
		{"text;", ErrTypeName},
		{"text--", ErrTypeName},
		{"1int", ErrTypeName},
		{"a.b.c", ErrTypeName},
		{".text", ErrTypeName},
		{"text.", ErrTypeName},
		{"text[", ErrTypeName},
		{"text[1]", ErrTypeName},
		{"tëxt", ErrTypeName},
		{"text\x00", ErrTypeName},
		{"varchar(10)", ErrTypeName},
		{strings.Repeat("a", 64), ErrTypeName},
		{"unknown", ErrPseudoType},
		{"UNKNOWN", ErrPseudoType},
		{"pg_catalog.record", ErrPseudoType},
		{"anyelement[]", ErrPseudoType},
	}
	for _, tt := range bad {
		t.Run(tt.in+" is refused", func(t *testing.T) {
			got, err := ParseTypeName(tt.in)
			if err != tt.want {
				t.Errorf("ParseTypeName(%q) = %s, %v; want %v", tt.in, got.SQL(), err, tt.want)
			}
		})
	}
}

func FuzzParseTypeNameAdmitsOnlyTheGrammar(f *testing.F) {
	for _, s := range []string{"int", "public.t[]", "text array", `a"b`, "x$1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tn, err := ParseTypeName(s)
		if err != nil {
			return
		}
		// Whatever passes is quoted identifiers, keywords from the
		// table, dots and brackets: no byte that could end a name.
		out := tn.SQL().String()
		unquoted := out
		for strings.Contains(unquoted, `"`) {
			i := strings.IndexByte(unquoted, '"')
			j := strings.IndexByte(unquoted[i+1:], '"')
			if j < 0 {
				t.Fatalf("unbalanced quotes in %q", out)
			}
			inner := unquoted[i+1 : i+1+j]
			if !isTypeIdent(inner) {
				t.Fatalf("quoted part %q of %q is not an identifier", inner, out)
			}
			unquoted = unquoted[:i] + unquoted[i+2+j:]
		}
		for _, c := range unquoted {
			if !(c >= 'a' && c <= 'z' || c == '.' || c == '[' || c == ']') {
				t.Fatalf("unexpected %q outside quotes in %q", c, out)
			}
		}
	})
}
