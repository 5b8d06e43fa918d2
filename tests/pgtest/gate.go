package pgtest

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// Gate is a TCP address standing for a database server: closed,
// connecting to it is refused as to a server that is down; open, it
// forwards every connection to the real server. The database "comes
// back" on the same address, as a restarted server does, without
// disturbing the cluster that other tests and connections use.
type Gate struct {
	// Addr is the gate's address, host:port on the loopback interface.
	Addr     string
	upstream string
	// accepted counts the connections accepted while open.
	accepted atomic.Int64

	mu    sync.Mutex
	ln    net.Listener
	conns []net.Conn
}

// NewGate reserves a loopback address in front of upstream (host:port),
// closed.
func NewGate(upstream string) (*Gate, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	g := &Gate{Addr: ln.Addr().String(), upstream: upstream}
	if err := ln.Close(); err != nil {
		return nil, err
	}
	return g, nil
}

// Open starts accepting and forwarding connections.
func (g *Gate) Open() error {
	ln, err := net.Listen("tcp", g.Addr)
	if err != nil {
		return err
	}
	g.mu.Lock()
	g.ln = ln
	g.mu.Unlock()
	go g.accept(ln)
	return nil
}

// Accepted is the number of connections the gate has accepted: who
// connected to the database since it came back, with no request sent.
func (g *Gate) Accepted() int64 { return g.accepted.Load() }

func (g *Gate) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		g.accepted.Add(1)
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

// Close refuses new connections and cuts the open ones.
func (g *Gate) Close() {
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
