package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// runTAPCommand runs args, copying its output, and counts the TAP summary
// lines it prints ("# pass N", "# fail N", "# cancelled N", "# skipped N"), summed over all
// of them: a command may run node --test more than once.
func runTAPCommand(out string, args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	stdout, err := start(cmd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		return 1
	}
	c, reported := readTAP(stdout, os.Stdout)
	code := exitCode(cmd.Wait())
	if code != 0 && c.Failed == 0 {
		c.Failed = 1 // failed before its tests ran, or after they passed
	}
	if !reported && code == 0 {
		fmt.Fprintln(os.Stderr, "testsummary: the command printed no TAP summary")
		code = 1
		c.Failed = 1
	}
	if err := writeCounts(out, c); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		return 1
	}
	return code
}

// readTAP copies in to w and sums the summary lines; reported says whether
// any was seen.
func readTAP(in io.Reader, w io.Writer) (c counts, reported bool) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(w, line)
		name, n, ok := tapSummary(line)
		if !ok {
			continue
		}
		switch name {
		case "pass":
			c.Passed += n
			reported = true
		case "fail", "cancelled":
			// node counts a cancelled test (a timeout, a hook that
			// threw) apart from failures; it failed all the same.
			c.Failed += n
		case "skipped":
			c.Skipped += n
		}
	}
	return c, reported
}

// tapSummary parses "# name N" at the start of a line: node's TAP reporter
// ends a run with such lines. Indented "# " lines are subtest diagnostics.
func tapSummary(line string) (string, int, bool) {
	rest, ok := strings.CutPrefix(line, "# ")
	if !ok {
		return "", 0, false
	}
	name, num, ok := strings.Cut(rest, " ")
	if !ok {
		return "", 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return "", 0, false
	}
	return name, n, true
}
