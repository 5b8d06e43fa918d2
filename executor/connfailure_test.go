package executor

import (
	"errors"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestConnectionFailureLogsTheCause(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	e := &Executor{logger: zap.New(core)}
	cause := errors.New("failed to connect to `user=alice database=secretdb`: 10.1.2.3:6543: connection refused")

	t.Run("PGRST000 tells the client no more than a fixed phrase and logs the cause", func(t *testing.T) {
		ae := e.connectionFailure(cause)
		if ae.Code != "PGRST000" || ae.Status != 503 || ae.Details != "The database server cannot be reached." {
			t.Fatalf("got %+v", ae)
		}
		entries := logs.TakeAll()
		if len(entries) != 1 || entries[0].ContextMap()["error"] != cause.Error() {
			t.Fatalf("logged %+v", entries)
		}
	})
	t.Run("PGRST001 tells the client nothing of the error and logs it", func(t *testing.T) {
		ae := e.clientFailure(cause)
		if ae.Code != "PGRST001" || ae.Status != 503 || ae.Details != nil {
			t.Fatalf("got %+v", ae)
		}
		entries := logs.TakeAll()
		if len(entries) != 1 || entries[0].ContextMap()["error"] != cause.Error() {
			t.Fatalf("logged %+v", entries)
		}
	})
}
