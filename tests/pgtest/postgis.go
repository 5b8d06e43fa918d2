package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"time"
)

// EnsurePostGIS makes sure the PostgreSQL server the clusters run on has
// PostGIS, installing Debian's package for its major version when it is
// missing (scripts/pg.sh ensure-postgis, as root or through sudo). Tests
// that need PostGIS call it and fail when it errs: they are never skipped
// for want of it.
func EnsurePostGIS() error {
	script, err := findScript()
	if err != nil {
		return err
	}
	// An install downloads and unpacks a few dozen packages: give it time.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script, "ensure-postgis")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pg.sh ensure-postgis: %w\n%s", err, out.String())
	}
	return nil
}
