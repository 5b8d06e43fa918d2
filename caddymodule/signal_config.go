package caddymodule

import (
	"context"
	"os"
	"os/signal"

	"go.uber.org/zap"
)

// watchReloadSignals calls reload on each schema cache reload signal
// (SIGUSR1 where it exists) until ctx is done. Caddy's own SIGUSR1 handling
// reloads the config only when it was started with `caddy run --config`;
// this makes the signal reload the schema cache however Caddy was started.
func watchReloadSignals(ctx context.Context, logger *zap.Logger, reload func()) {
	watchSignals(ctx, reloadSignals, func(sig os.Signal) {
		logger.Info("reloading schema cache", zap.Stringer("signal", sig))
		reload()
	})
}

// watchConfigSignals calls reload on each config reload signal (SIGUSR2
// where it exists) until ctx is done.
func watchConfigSignals(ctx context.Context, logger *zap.Logger, reload func()) {
	watchSignals(ctx, configReloadSignals, func(sig os.Signal) {
		logger.Info("reloading the in-database configuration", zap.Stringer("signal", sig))
		reload()
	})
}

// watchSignals calls on for each of sigs received until ctx is done.
func watchSignals(ctx context.Context, sigs []os.Signal, on func(os.Signal)) {
	if len(sigs) == 0 {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	go func() {
		defer signal.Stop(ch)
		for {
			select {
			case <-ctx.Done():
				return
			case sig := <-ch:
				on(sig)
			}
		}
	}()
}
