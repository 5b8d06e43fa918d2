//go:build !unix

package caddymodule

import "os"

// configReloadSignals is empty where there is no SIGUSR2 (Windows);
// NOTIFY pgrst, 'reload config' still reloads the configuration there.
var configReloadSignals []os.Signal
