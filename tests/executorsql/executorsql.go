// Package executorsql gives the benchmarks and the wire tests the
// statements pgrest's executor sends whatever the request: the settings
// statement, BEGIN and the session reset after COMMIT. The
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
	// SessionReset is executor/session_reset.go's sessionReset: the
	// statements sent after COMMIT, in the same pipeline, so that nothing
	// a request left at session level reaches the next one.
	SessionReset []string
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
	if s.SessionReset, err = stringList(filepath.Join(root, "executor/session_reset.go"), "sessionReset"); err != nil {
		return Statements{}, err
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
	e, err := declared(file, token.CONST, name)
	if err != nil {
		return "", err
	}
	if v, ok := literal(e); ok {
		return v, nil
	}
	return "", fmt.Errorf("%s in %s is no longer a concatenation of string literals", name, file)
}

// stringList evaluates the variable name declared in file as an array or
// slice literal of string literals.
func stringList(file, name string) ([]string, error) {
	e, err := declared(file, token.VAR, name)
	if err != nil {
		return nil, err
	}
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		return nil, fmt.Errorf("%s in %s is no longer a list literal", name, file)
	}
	var list []string
	for _, e := range lit.Elts {
		v, ok := literal(e)
		if !ok {
			return nil, fmt.Errorf("%s in %s is no longer a list of string literals", name, file)
		}
		list = append(list, v)
	}
	return list, nil
}

// declared is the value of the constant or variable (tok) name declared
// at the top level of file.
func declared(file string, tok token.Token, name string) (ast.Expr, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != tok {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if n.Name == name && i < len(vs.Values) {
					return vs.Values[i], nil
				}
			}
		}
	}
	return nil, fmt.Errorf("%s: %s %s not found", file, tok, name)
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
