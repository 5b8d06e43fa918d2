package reload

import (
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// newGate reserves a closed pgtest.Gate in front of upstream, closed
// again when t ends.
func newGate(t *testing.T, upstream string) *pgtest.Gate {
	t.Helper()
	g, err := pgtest.NewGate(upstream)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g
}

// openGate lets the database behind g come back.
func openGate(t *testing.T, g *pgtest.Gate) {
	t.Helper()
	if err := g.Open(); err != nil {
		t.Fatalf("reopening %s: %v", g.Addr, err)
	}
}
