//go:build unix

package caddymodule

import (
	"os"
	"syscall"
)

// reloadSignals reload the schema cache, as SIGUSR1 does for PostgREST.
var reloadSignals = []os.Signal{syscall.SIGUSR1}
