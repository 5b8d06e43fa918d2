package main

import (
	"fmt"
	"os"
	"strings"
)

// counts is one suite's result, stored in a count file as one line:
// "passed failed skipped".
type counts struct {
	Passed, Failed, Skipped int
}

func (c *counts) add(o counts) {
	c.Passed += o.Passed
	c.Failed += o.Failed
	c.Skipped += o.Skipped
}

func (c counts) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", c.Passed, c.Failed, c.Skipped)
}

func writeCounts(path string, c counts) error {
	return os.WriteFile(path, []byte(fmt.Sprintf("%d %d %d\n", c.Passed, c.Failed, c.Skipped)), 0o644)
}

func readCounts(path string) (counts, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return counts{}, err
	}
	var c counts
	if _, err := fmt.Sscan(strings.TrimSpace(string(data)), &c.Passed, &c.Failed, &c.Skipped); err != nil {
		return counts{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// printTotal prints the summary line of the count files. A missing file is
// a suite that did not finish (setup failed, or it was never reached): the
// line says so and the exit code is 1, so a run is never summed as clean
// when part of it did not run.
func printTotal(paths []string) int {
	var total counts
	var missing []string
	for _, p := range paths {
		c, err := readCounts(p)
		if err != nil {
			missing = append(missing, p)
			continue
		}
		total.add(c)
	}
	line := total.String()
	if len(missing) > 0 {
		line += fmt.Sprintf(" (%d suite(s) did not report: %s)", len(missing), strings.Join(missing, ", "))
	}
	fmt.Println("make test: " + line)
	if len(missing) > 0 || total.Failed > 0 {
		return 1
	}
	return 0
}
