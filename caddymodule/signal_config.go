package caddymodule

import (
	"context"
	"os"
	"os/signal"

	"go.uber.org/zap"
)

// watchConfigSignals calls reload on each config reload signal (SIGUSR2
// where it exists) until ctx is done.
func watchConfigSignals(ctx context.Context, logger *zap.Logger, reload func()) {
	if len(configReloadSignals) == 0 {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, configReloadSignals...)
	go func() {
		defer signal.Stop(ch)
		for {
			select {
			case <-ctx.Done():
				return
			case sig := <-ch:
				logger.Info("reloading the in-database configuration", zap.Stringer("signal", sig))
				reload()
			}
		}
	}()
}
