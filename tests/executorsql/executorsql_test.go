package executorsql

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// TestLoadReadsTheExecutorsStatements reads the statements from the
// executor's source: a renamed constant, or one no longer written as
// literals, fails here rather than in a benchmark run.
func TestLoadReadsTheExecutorsStatements(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Settings, "select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)") ||
		!strings.Contains(s.Settings, "set_config('search_path', $7, true)") || strings.Contains(s.Settings, "$8") {
		t.Errorf("Settings = %q, want the settings statement with $1 to $7", s.Settings)
	}
	if len(s.SessionReset) == 0 || s.SessionReset[0] != "CLOSE ALL" || !slices.Contains(s.SessionReset, "RESET ALL") {
		t.Errorf("SessionReset = %q, want the statements of executor/session_reset.go", s.SessionReset)
	}
	if s.BeginReadOnly != "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY" ||
		s.BeginReadWrite != "BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE" {
		t.Errorf("BeginReadOnly = %q, BeginReadWrite = %q", s.BeginReadOnly, s.BeginReadWrite)
	}
}

func TestStringConstNamesWhatItCannotRead(t *testing.T) {
	root, err := pgtest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "executor", "settings.go")
	if _, err := stringConst(file, "noSuchConstant"); err == nil || !strings.Contains(err.Error(), "const noSuchConstant not found") {
		t.Errorf("a missing constant: %v", err)
	}
	// maxSettingArgs is a number, not a concatenation of string literals.
	if _, err := stringConst(file, "maxSettingArgs"); err == nil || !strings.Contains(err.Error(), "no longer a concatenation") {
		t.Errorf("a number constant: %v", err)
	}
}

// stringList reads a list of string literals, and refuses anything else.
func TestStringListReadsAListOfLiterals(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.go")
	src := "package x\n\nvar ok = [...]string{\"A\", \"B\" + \"C\"}\n\nvar notLiterals = []string{name}\n"
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := stringList(file, "ok")
	if err != nil || !slices.Equal(got, []string{"A", "BC"}) {
		t.Errorf("ok: %q, %v", got, err)
	}
	if _, err := stringList(file, "notLiterals"); err == nil {
		t.Error("a list holding a name was read")
	}
	if _, err := stringList(file, "missing"); err == nil {
		t.Error("a missing variable was found")
	}
}
