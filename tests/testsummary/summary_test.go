package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sampleModule is a module whose tests pass, fail, skip and fail inside a
// subtest, so a real go test -json stream has every shape the report reads.
const sampleTest = `package sample

import "testing"

func TestPasses(t *testing.T) { t.Log("quiet when passing") }

func TestSkips(t *testing.T) { t.Skip("not here") }

func TestFails(t *testing.T) { t.Error("loud failure") }

func TestParent(t *testing.T) {
	t.Run("ok", func(t *testing.T) { t.Log("passing subtest log") })
	t.Run("bad", func(t *testing.T) { t.Error("subtest failure") })
}
`

func TestGoReportOnRealGoTest(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module sample\n\ngo 1.21\n")
	write(t, filepath.Join(dir, "sample_test.go"), sampleTest)
	cmd := exec.Command("go", "test", "-json", "-count=1", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	stream, _ := cmd.Output() // exits 1: the sample has failing tests

	var printed bytes.Buffer
	c := newGoReport(&printed).read(bytes.NewReader(stream))
	// Passed: TestPasses, TestParent/ok. Failed: TestFails, TestParent/bad,
	// TestParent. Skipped: TestSkips.
	if want := (counts{Passed: 2, Failed: 3, Skipped: 1}); c != want {
		t.Fatalf("counts = %+v, want %+v\n%s", c, want, printed.String())
	}
	out := printed.String()
	for _, want := range []string{"loud failure", "subtest failure", "--- FAIL: TestFails", "FAIL\tsample"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"quiet when passing", "passing subtest log", "=== RUN", "not here"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("output has %q, which plain go test hides:\n%s", unwanted, out)
		}
	}
}

func TestPackageFailureWithoutTestIsCounted(t *testing.T) {
	stream := `{"Action":"start","Package":"p"}
{"Action":"output","Package":"p","Output":"panic: TestMain broke\n"}
{"Action":"fail","Package":"p"}
`
	var printed bytes.Buffer
	c := newGoReport(&printed).read(strings.NewReader(stream))
	if c.Failed != 1 {
		t.Fatalf("a package that failed with no failing test counts %d failures, want 1", c.Failed)
	}
	if !strings.Contains(printed.String(), "TestMain broke") {
		t.Fatalf("package output not printed: %q", printed.String())
	}
}

func TestTAPSummariesAreSummed(t *testing.T) {
	// Two node runs in one command (two client suites).
	tap := "TAP version 13\n# Subtest: x\nok 1 - x\n  # pass 99\n1..1\n# tests 3\n# pass 2\n# fail 1\n# skipped 0\n" +
		"TAP version 13\n# tests 6\n# pass 4\n# fail 0\n# cancelled 1\n# skipped 1\n"
	var copied bytes.Buffer
	c, reported := readTAP(strings.NewReader(tap), &copied)
	if !reported {
		t.Fatal("summary lines not recognised")
	}
	if want := (counts{Passed: 6, Failed: 2, Skipped: 1}); c != want {
		t.Fatalf("counts = %+v, want %+v", c, want)
	}
	if copied.String() != tap {
		t.Fatal("the command's output was not copied unchanged")
	}
}

func TestTotalFailsOnMissingSuite(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "go.count")
	if err := writeCounts(good, counts{Passed: 10, Skipped: 2}); err != nil {
		t.Fatal(err)
	}
	if code := printTotal([]string{good}); code != 0 {
		t.Fatalf("clean total exits %d", code)
	}
	if code := printTotal([]string{good, filepath.Join(dir, "client.count")}); code != 1 {
		t.Fatalf("total with a suite that never reported exits %d, want 1", code)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
