//go:build unix

package caddymodule

import (
	"os"
	"syscall"
)

// configReloadSignals re-read the in-database configuration, as SIGUSR2
// does for PostgREST. Caddy itself ignores SIGUSR2.
var configReloadSignals = []os.Signal{syscall.SIGUSR2}
