package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The baselines' copies of pgrest's SQL, the session reset among them,
// match the executor's source.
func TestBaselinesSendTheExecutorsSQL(t *testing.T) {
	if err := checkExecutorSQL(); err != nil {
		t.Fatal(err)
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
