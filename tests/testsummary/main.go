// Command testsummary runs make test's suites and ends the run with one line
// of counts, so its result reads at a glance:
//
//	make test: 1234 passed, 0 failed, 3 skipped
//
// It has three modes:
//
//	testsummary go -out FILE [go test flags and packages]
//	testsummary cmd -out FILE command [args]
//	testsummary total FILE...
//
// go runs go test -json and prints what plain go test prints (a line per
// package, and the whole output of each failing test), counting every test
// and subtest. cmd runs a command that prints TAP summaries (node --test)
// and counts its "# pass N", "# fail N" and "# skipped N" lines, summed over
// every run it prints. Both write their counts to FILE and exit with the
// command's code. total adds up such files and prints the summary line; it
// exits 1 when a count file is missing (its suite never ran to the end).
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "go":
		out, args := outFlag(os.Args[2:])
		os.Exit(runGoTest(out, args))
	case "cmd":
		out, args := outFlag(os.Args[2:])
		if len(args) == 0 {
			usage()
		}
		os.Exit(runTAPCommand(out, args))
	case "total":
		os.Exit(printTotal(os.Args[2:]))
	default:
		usage()
	}
}

// outFlag takes the leading "-out FILE" off args.
func outFlag(args []string) (string, []string) {
	if len(args) < 2 || args[0] != "-out" {
		usage()
	}
	return args[1], args[2:]
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: testsummary go -out FILE [go test args] | cmd -out FILE command [args] | total FILE...")
	os.Exit(2)
}

// start starts cmd with its standard error going to ours and returns its
// standard output, which the caller reads to the end before cmd.Wait.
func start(cmd *exec.Cmd) (io.Reader, error) {
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	return stdout, cmd.Start()
}
