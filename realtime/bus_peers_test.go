package realtime

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pgrest/caddy-pgrest/tests/dbpooltest"
)

var testDB = &dbpooltest.Cluster{Name: "realtime_peers"}

func TestMain(m *testing.M) { testDB.Run(m) }

// listenAs opens a connection named as node's listener, closed when the
// test ends.
func listenAs(t *testing.T, dsn, node string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["application_name"] = listenerName(node)
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// TestPeersCountedAreOtherNodes: a node that starts waits for the other
// nodes listening on its database, each once however many of its
// instances listen, and not for an instance of itself: on a
// configuration reload the new instance starts while the old one, which
// takes the new one's hello for its own and never reports, still
// listens.
func TestPeersCountedAreOtherNodes(t *testing.T) {
	dsn := testDB.Database(t)
	listenAs(t, dsn, "a")
	listenAs(t, dsn, "b")
	listenAs(t, dsn, "b") // node b reloading: its old and new instance
	for _, c := range []struct {
		node string
		want int
	}{
		{"a", 1}, // a's new instance, a's old one listening: b only
		{"b", 1},
		{"c", 2},
	} {
		conn := listenAs(t, dsn, c.node)
		p := newPeers()
		p.expect(context.Background(), conn, c.node)
		p.mu.Lock()
		got := p.expected
		p.mu.Unlock()
		if got != c.want {
			t.Errorf("node %s expects %d nodes to report, want %d", c.node, got, c.want)
		}
		_ = conn.Close(context.Background())
	}
}

// TestPeersUncountedHoldNoJoin: when the listeners cannot be counted
// (here the connection is gone), the node does not hold its first
// presence joins for reports it cannot count: they go on at once, as on
// a database with no other node, rather than each waiting the bound.
func TestPeersUncountedHoldNoJoin(t *testing.T) {
	conn := listenAs(t, testDB.Database(t), "d")
	_ = conn.Close(context.Background())
	p := newPeers()
	p.expect(context.Background(), conn, "d")
	select {
	case <-p.ready:
	default:
		t.Fatal("a node whose count of listeners failed holds its presence joins")
	}
}

// TestListenerNameFitsPostgreSQL: a long node name is cut to the 63 bytes
// PostgreSQL keeps of an application_name, at a whole character, so that
// the name the node counts by is the name PostgreSQL shows.
func TestListenerNameFitsPostgreSQL(t *testing.T) {
	long := listenerName(strings.Repeat("é", 40))
	if len(long) > maxApplicationName || !utf8.ValidString(long) || !strings.HasPrefix(long, listenerPrefix) {
		t.Errorf("listenerName of a long node: %q (%d bytes)", long, len(long))
	}
	if got := listenerName("node1"); got != "pgrest_realtime node1" {
		t.Errorf("listenerName(node1) = %q", got)
	}
}
