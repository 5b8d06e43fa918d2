package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// testEvent is one line of go test -json (cmd/test2json's TestEvent).
type testEvent struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output and build-fail
}

// runGoTest runs go test -json with args, prints what plain go test would
// print, writes the counts to out and returns go test's exit code.
func runGoTest(out string, args []string) int {
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	cmd := exec.Command(goCmd, append([]string{"test", "-json"}, args...)...)
	stdout, err := start(cmd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		return 1
	}
	c := newGoReport(os.Stdout).read(stdout)
	code := exitCode(cmd.Wait())
	if code != 0 && c.Failed == 0 {
		// go test failed before any test could: count the run as one
		// failure so the summary line never reads clean.
		c.Failed = 1
	}
	if err := writeCounts(out, c); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		return 1
	}
	return code
}

// goReport turns go test -json events back into plain go test's output: a
// test's output is kept until it ends and printed only when it fails.
type goReport struct {
	w         io.Writer
	counts    counts
	held      map[string][]string // package + "\x00" + test → output lines
	pkgFailed map[string]bool     // packages in which a test failed
}

func newGoReport(w io.Writer) *goReport {
	return &goReport{w: w, held: map[string][]string{}, pkgFailed: map[string]bool{}}
}

// read consumes the event stream and returns the counts. A line that is not
// JSON (go test wrote it before -json applied) is printed as it is.
func (r *goReport) read(in io.Reader) counts {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var ev testEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Action == "" {
			fmt.Fprintln(r.w, sc.Text())
			continue
		}
		r.event(ev)
	}
	return r.counts
}

func (r *goReport) event(ev testEvent) {
	switch {
	case ev.Action == "build-output":
		fmt.Fprint(r.w, ev.Output)
	case ev.Test == "":
		r.packageEvent(ev)
	case ev.Action == "output":
		if !strings.HasPrefix(ev.Output, "=== ") {
			key := ev.Package + "\x00" + ev.Test
			r.held[key] = append(r.held[key], ev.Output)
		}
	case ev.Action == "pass":
		r.counts.Passed++
		delete(r.held, ev.Package+"\x00"+ev.Test)
	case ev.Action == "skip":
		r.counts.Skipped++
		delete(r.held, ev.Package+"\x00"+ev.Test)
	case ev.Action == "fail":
		r.counts.Failed++
		r.pkgFailed[ev.Package] = true
		r.testFailed(ev.Package, ev.Test)
	}
}

// testFailed prints a failed top-level test's output, or hands a failed
// subtest's output to its parent, which prints it when it fails in turn.
func (r *goReport) testFailed(pkg, test string) {
	key := pkg + "\x00" + test
	lines := r.held[key]
	delete(r.held, key)
	if i := strings.LastIndexByte(test, '/'); i >= 0 {
		parent := pkg + "\x00" + test[:i]
		r.held[parent] = append(r.held[parent], lines...)
		return
	}
	for _, l := range lines {
		fmt.Fprint(r.w, l)
	}
}

// packageEvent prints a package's own lines (ok, FAIL, no test files, and
// what TestMain prints) as plain go test does, and counts a package that
// failed without a failing test — a panic in TestMain, a timeout, a build
// error — as one failure.
func (r *goReport) packageEvent(ev testEvent) {
	switch ev.Action {
	case "output":
		if ev.Output != "PASS\n" {
			fmt.Fprint(r.w, ev.Output)
		}
	case "fail":
		if !r.pkgFailed[ev.Package] {
			r.counts.Failed++
		}
		// Output of tests that never ended (a timeout's panic names them).
		for key, lines := range r.held {
			if strings.HasPrefix(key, ev.Package+"\x00") {
				for _, l := range lines {
					fmt.Fprint(r.w, l)
				}
				delete(r.held, key)
			}
		}
	}
}

// exitCode is a finished command's exit code: 0, its own, or 1.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) && exitErr.ExitCode() > 0 {
		return exitErr.ExitCode()
	}
	fmt.Fprintln(os.Stderr, "testsummary:", err)
	return 1
}
