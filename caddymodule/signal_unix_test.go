//go:build unix

package caddymodule

import (
	"context"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
)

func TestSIGUSR1ReloadsTheSchemaCache(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reloads := make(chan struct{}, 1)
	watchReloadSignals(ctx, zap.NewNop(), func() { reloads <- struct{}{} })

	if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-reloads:
	case <-time.After(30 * time.Second):
		t.Fatal("SIGUSR1 did not reload the schema cache")
	}
}

func TestSIGUSR2ReloadsTheConfiguration(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reloads := make(chan struct{}, 1)
	watchConfigSignals(ctx, zap.NewNop(), func() { reloads <- struct{}{} })

	if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	select {
	case <-reloads:
	case <-time.After(30 * time.Second):
		t.Fatal("SIGUSR2 did not reload the configuration")
	}
}
