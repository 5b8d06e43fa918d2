package reload

import (
	"io"
	"net"
	"sync"
	"testing"
)

// gate is a TCP address standing for the database: closed, connecting
// to it is refused as to a server that is down; open, it forwards every
// connection to the real server. The database "comes back" on the same
// address, as a restarted server does, without disturbing the cluster
// other tests use.
type gate struct {
	addr, upstream string

	mu    sync.Mutex
	ln    net.Listener
	conns []net.Conn
}

// newGate reserves a loopback address in front of upstream, closed.
func newGate(t *testing.T, upstream string) *gate {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{addr: ln.Addr().String(), upstream: upstream}
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.close)
	return g
}

// open starts accepting and forwarding connections.
func (g *gate) open(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", g.addr)
	if err != nil {
		t.Fatalf("reopening %s: %v", g.addr, err)
	}
	g.mu.Lock()
	g.ln = ln
	g.mu.Unlock()
	go g.accept(ln)
}

func (g *gate) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", g.upstream)
		if err != nil {
			c.Close()
			continue
		}
		g.mu.Lock()
		g.conns = append(g.conns, c, u)
		g.mu.Unlock()
		go pipe(c, u)
		go pipe(u, c)
	}
}

// pipe copies src to dst until either side closes, then closes dst, so
// that the end of one side ends the other.
func pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	_ = dst.Close()
}

// close refuses new connections and cuts the open ones.
func (g *gate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ln != nil {
		g.ln.Close()
		g.ln = nil
	}
	for _, c := range g.conns {
		c.Close()
	}
	g.conns = nil
}
