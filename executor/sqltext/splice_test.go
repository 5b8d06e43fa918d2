package sqltext_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"
)

// TestSplicingRequestTextDoesNotCompile type-checks small programs
// against this package, from source and offline: every way of turning a
// string variable into SQL is a type error, and the same calls with
// constants and quoted names compile.
func TestSplicingRequestTextDoesNotCompile(t *testing.T) {
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	check := func(body string) []string {
		t.Helper()
		// s stands for request text: a string only known at run time.
		src := "package splice\n\nimport \"github.com/pgrest/caddy-pgrest/executor/sqltext\"\n\n" +
			"var s = string(rune(len(sqltext.Ident(\"x\").String())))\n\n" + body + "\n"
		f, err := parser.ParseFile(fset, "splice.go", src, 0)
		if err != nil {
			t.Fatalf("parsing %q: %v", body, err)
		}
		var errs []string
		conf := types.Config{Importer: imp, Error: func(err error) { errs = append(errs, err.Error()) }}
		_, _ = conf.Check("splice", fset, []*ast.File{f}, nil)
		return errs
	}
	compiles := []string{
		`var _ = sqltext.Const("select 1")`,
		`var _ = sqltext.Fmt("select %s from %s", sqltext.Ident(s), sqltext.Qualified("api", s))`,
		`var _ = sqltext.Join([]sqltext.SQL{sqltext.Ident(s)}, ", ")`,
		`func f(b *sqltext.Builder) { b.Const(" where true") }`,
		`const where = " where " + "true"
var _ = sqltext.Const(where)`,
	}
	for _, body := range compiles {
		if errs := check(body); len(errs) > 0 {
			t.Errorf("%s does not compile: %q", body, errs)
		}
	}
	splices := []struct{ body, want string }{
		{`var _ = sqltext.Const(s)`, "cannot use s (variable of type string) as sqltext.constant value in argument to sqltext.Const"},
		{`var _ = sqltext.Const("select " + s)`, "cannot use \"select \" + s (value of type string) as sqltext.constant value"},
		{`var _ = sqltext.Fmt(s)`, "cannot use s (variable of type string) as sqltext.constant value in argument to sqltext.Fmt"},
		{`var _ = sqltext.Join(nil, s)`, "cannot use s (variable of type string) as sqltext.constant value in argument to sqltext.Join"},
		{`func f(b *sqltext.Builder) { b.Const(s) }`, "cannot use s (variable of type string) as sqltext.constant value in argument to b.Const"},
		{`var _ sqltext.SQL = s`, "cannot use s (variable of type string) as sqltext.SQL value in variable declaration"},
		{`var _ = sqltext.SQL{s}`, "implicit assignment to unexported field s in struct literal"},
	}
	for _, tt := range splices {
		errs := check(tt.body)
		if len(errs) == 0 {
			t.Errorf("%s compiles: request text could become SQL", tt.body)
			continue
		}
		if !strings.Contains(strings.Join(errs, "\n"), tt.want) {
			t.Errorf("%s: errors %q, want one containing %q", tt.body, errs, tt.want)
		}
	}
}
