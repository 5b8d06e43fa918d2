package wire

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
)

// message is one frontend message pgrest sent, as the proxy read it.
type message struct {
	conn int  // which of pgrest's connections sent it, in accept order
	kind byte // the protocol's message type: 'P' Parse, 'B' Bind, 'S' Sync, 'Q' Query...
	// name is the statement a Parse prepares or a Bind binds ("" unnamed);
	// sql is a Parse's or a Query's text.
	name, sql string
}

// recorder is a TCP proxy between pgrest and PostgreSQL that records the
// frontend messages pgrest sends, so a test can see exactly which
// statements a request costs the server: how many are parsed, which are
// named, which run.
type recorder struct {
	ln       net.Listener
	upstream string

	mu    sync.Mutex
	conns int
	msgs  []message
}

func startRecorder(t *testing.T, upstream string) *recorder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{ln: ln, upstream: upstream}
	t.Cleanup(func() { _ = ln.Close() })
	go r.accept()
	return r
}

func (r *recorder) addr() string { return r.ln.Addr().String() }

func (r *recorder) accept() {
	for {
		client, err := r.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", r.upstream)
		if err != nil {
			_ = client.Close()
			continue
		}
		r.mu.Lock()
		r.conns++
		id := r.conns
		r.mu.Unlock()
		go func() {
			_, _ = io.Copy(client, server)
			_ = client.Close()
		}()
		go func() {
			r.relay(id, client, server)
			_ = server.Close()
		}()
	}
}

// mark returns a position in the record; since returns what came after.
func (r *recorder) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.msgs)
}

func (r *recorder) since(mark int) []message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]message(nil), r.msgs[mark:]...)
}

// requestSince is what the connection that served the request sent since
// mark: the one whose first message since then is a Parse or a Bind (a
// request's pipeline starts with BEGIN). Another connection's messages
// (the reload listener's LISTEN, say, sent as a simple Query whenever it
// connects) arrive in between and are left out.
func (r *recorder) requestSince(mark int) []message {
	all := r.since(mark)
	i := slices.IndexFunc(all, func(m message) bool { return m.kind == 'P' || m.kind == 'B' })
	if i < 0 {
		return all
	}
	conn := all[i].conn
	return slices.DeleteFunc(all, func(m message) bool { return m.conn != conn })
}

// Untyped first messages: the protocol version of a startup message, and
// the codes of requests answered before it.
const (
	protocol3     = 196608
	sslRequest    = 80877103
	gssEncRequest = 80877104
)

// relay copies the client's messages to the server, recording them.
func (r *recorder) relay(id int, client, server net.Conn) {
	// Untyped messages until the startup message.
	for {
		head := make([]byte, 8)
		if _, err := io.ReadFull(client, head); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(head))
		body := make([]byte, n-8)
		if _, err := io.ReadFull(client, body); err != nil {
			return
		}
		if _, err := server.Write(append(head, body...)); err != nil {
			return
		}
		code := binary.BigEndian.Uint32(head[4:])
		if code == protocol3 {
			break
		}
		if code != sslRequest && code != gssEncRequest {
			// A cancel request: nothing follows on this connection.
			_, _ = io.Copy(server, client)
			return
		}
	}
	for {
		head := make([]byte, 5)
		if _, err := io.ReadFull(client, head); err != nil {
			return
		}
		body := make([]byte, int(binary.BigEndian.Uint32(head[1:]))-4)
		if _, err := io.ReadFull(client, body); err != nil {
			return
		}
		m := message{conn: id, kind: head[0]}
		switch rest := body; m.kind {
		case 'P':
			m.name, rest = cstring(rest)
			m.sql, _ = cstring(rest)
		case 'B':
			_, rest = cstring(rest) // the portal
			m.name, _ = cstring(rest)
		case 'Q':
			m.sql, _ = cstring(rest)
		}
		r.mu.Lock()
		r.msgs = append(r.msgs, m)
		r.mu.Unlock()
		if _, err := server.Write(append(head, body...)); err != nil {
			return
		}
	}
}

// cstring splits a NUL-terminated string off b.
func cstring(b []byte) (string, []byte) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return string(b), nil
	}
	return string(b[:i]), b[i+1:]
}
