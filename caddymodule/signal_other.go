//go:build !unix

package caddymodule

import "os"

// reloadSignals is empty where there is no SIGUSR1 (Windows); NOTIFY and
// config reloads still reload the schema cache there.
var reloadSignals []os.Signal
