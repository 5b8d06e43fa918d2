// Package executorsql gives the benchmarks the statements pgrest's executor
// sends whatever the request: the settings statement and BEGIN. The
// executor does not export them (a benchmark is no reason to widen its
// API), and a copy in a tool would drift from what pgrest sends unseen, so
// they are read from the executor's source: string constants that are
// concatenations of literals, found from the working folder up to go.mod.
// Run the tools from the repository.
package executorsql

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// Statements are the executor's fixed statements.
type Statements struct {
	// Settings is executor/settings.go's settingsSQL: the settings
	// statement of a request without variable settings, $1 to $7 being
	// role, claims, method, path, headers, cookies and search_path.
	Settings string
	// BeginReadOnly and BeginReadWrite are executor/runner.go's BEGINs.
	BeginReadOnly, BeginReadWrite string
}

// Load reads the statements from the executor's source.
func Load() (Statements, error) {
	root, err := pgtest.ModuleRoot()
	if err != nil {
		return Statements{}, fmt.Errorf("reading the executor's statements: %w (run from the repository)", err)
	}
	var s Statements
	for _, c := range []struct {
		file, name string
		to         *string
	}{
		{"executor/settings.go", "settingsSQL", &s.Settings},
		{"executor/runner.go", "beginReadOnly", &s.BeginReadOnly},
		{"executor/runner.go", "beginReadWrite", &s.BeginReadWrite},
	} {
		if *c.to, err = stringConst(filepath.Join(root, c.file), c.name); err != nil {
			return Statements{}, err
		}
	}
	return s, nil
}

// MustLoad is Load for a command's package variables: on error it prints
// why and exits.
func MustLoad() Statements {
	s, err := Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return s
}

// stringConst evaluates the string constant name declared in file, a
// concatenation of string literals.
func stringConst(file, name string) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		return "", err
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if n.Name != name || i >= len(vs.Values) {
					continue
				}
				if v, ok := literal(vs.Values[i]); ok {
					return v, nil
				}
				return "", fmt.Errorf("%s in %s is no longer a concatenation of string literals", name, file)
			}
		}
	}
	return "", fmt.Errorf("%s: constant %s not found", file, name)
}

func literal(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.ParenExpr:
		return literal(e.X)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		a, ok := literal(e.X)
		if !ok {
			return "", false
		}
		b, ok := literal(e.Y)
		return a + b, ok
	}
	return "", false
}
