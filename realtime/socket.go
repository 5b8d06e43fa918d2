package realtime

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/zap"
)

const (
	// idleTimeout closes a socket that sent nothing, not even a
	// heartbeat, for this long: Phoenix's socket timeout (60s), against
	// which realtime-js heartbeats every 25s.
	idleTimeout = 60 * time.Second
	// writeTimeout ends a socket whose peer does not take a frame.
	writeTimeout = 10 * time.Second
)

// socket is one WebSocket connection and its channels.
type socket struct {
	srv  *Server
	conn *websocket.Conn
	vsn  string
	// id is the identity of the apikey the socket connected with: a
	// channel joined without an access_token acts as it.
	id identity

	// out is the bounded outbound queue (QueueFrames): a full queue ends
	// the socket (a slow consumer), never blocks the hub, the bus or the
	// change feed, which deliver into it. A slice that grows as needed,
	// not a buffered channel, so that an idle socket holds no room for
	// frames it is not sent; wake tells the writer there is something.
	outMu     sync.Mutex
	out       []frame
	wake      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	// writerDone is closed when the writer has returned: after it, no
	// frame is written any more (resume points are taken then).
	writerDone chan struct{}

	mu       sync.Mutex
	channels map[string]*channel
}

// frame is one outbound WebSocket message.
type frame struct {
	data   []byte
	binary bool
	// written, when set, is called once the frame is written.
	written func()
}

func newSocket(srv *Server, conn *websocket.Conn, vsn string, id identity) *socket {
	return &socket{srv: srv, conn: conn, vsn: vsn, id: id,
		wake: make(chan struct{}, 1), done: make(chan struct{}), writerDone: make(chan struct{}),
		channels: map[string]*channel{}}
}

// run reads and dispatches until the socket ends.
func (s *socket) run(ctx context.Context) {
	// Frames up to 4 times the limit are read, so that the client is
	// answered with the error reply; a larger one ends this socket with
	// 1009 (message too big), as the WebSocket protocol has it.
	s.conn.SetReadLimit(int64(s.srv.cfg.MaxMessageBytes)*4 + 1024)
	go s.write(ctx)
	defer s.close(websocket.StatusNormalClosure, "")
	for {
		rctx, cancel := context.WithTimeout(ctx, idleTimeout)
		typ, data, err := s.conn.Read(rctx)
		cancel()
		if err != nil {
			if !errors.Is(err, context.Canceled) && websocket.CloseStatus(err) == -1 {
				s.srv.logf("realtime socket read ended", zap.Error(err))
			}
			return
		}
		select {
		case <-s.done:
			return
		default:
		}
		s.receive(typ, data)
	}
}

// write sends the queued frames in order.
func (s *socket) write(ctx context.Context) {
	defer close(s.writerDone)
	for {
		select {
		case <-s.done:
			return
		case <-s.wake:
		}
		s.outMu.Lock()
		batch := s.out
		s.out = nil
		s.outMu.Unlock()
		for _, f := range batch {
			typ := websocket.MessageText
			if f.binary {
				typ = websocket.MessageBinary
			}
			wctx, cancel := context.WithTimeout(ctx, writeTimeout)
			err := s.conn.Write(wctx, typ, f.data)
			cancel()
			if err != nil {
				s.close(websocket.StatusInternalError, "write failed")
				return
			}
			if f.written != nil {
				f.written()
			}
		}
	}
}

// enqueue queues a frame without blocking; a full queue ends the socket.
// The writer takes the queue as a batch: a socket holds at most twice
// QueueFrames frames, the batch being written and the queue behind it.
func (s *socket) enqueue(f frame) bool {
	select {
	case <-s.done:
		return false
	default:
	}
	s.outMu.Lock()
	if len(s.out) >= s.srv.cfg.QueueFrames {
		s.outMu.Unlock()
		s.srv.log.Warn("realtime socket disconnected: its outbound queue is full (slow consumer)",
			zap.Int("frames", s.srv.cfg.QueueFrames))
		go s.close(websocket.StatusPolicyViolation, "slow consumer: outbound queue full")
		return false
	}
	s.out = append(s.out, f)
	s.outMu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return true
}

// push queues a message of the socket's serializer.
func (s *socket) push(joinRef, ref json.RawMessage, topic, event string, payload any) bool {
	return s.enqueue(frame{data: encodeText(s.vsn, joinRef, ref, topic, event, payload)})
}

// reply answers a message with phx_reply.
func (s *socket) reply(m message, status string, response any) {
	s.enqueue(s.replyFrame(m, status, response))
}

// replyFrame is reply's message, for a caller that queues it itself.
func (s *socket) replyFrame(m message, status string, response any) frame {
	return frame{data: encodeText(s.vsn, m.JoinRef, m.Ref, m.Topic, "phx_reply", map[string]any{"status": status, "response": response})}
}

// errorReply answers with phx_reply {"status":"error","response":{"reason":…}}.
func (s *socket) errorReply(m message, reason string) {
	s.reply(m, "error", map[string]string{"reason": reason})
}

var emptyObject = json.RawMessage("{}")

// close ends the socket once: its channels leave (presences untracked,
// change subscriptions closed) and the connection closes.
func (s *socket) close(code websocket.StatusCode, reason string) {
	s.closeOnce.Do(func() {
		close(s.done)
		s.mu.Lock()
		chans := make([]*channel, 0, len(s.channels))
		for _, c := range s.channels {
			chans = append(chans, c)
		}
		s.channels = map[string]*channel{}
		s.mu.Unlock()
		// The channels did not leave: their clients may rejoin and
		// resume their changes (resume.go).
		var resumes []*resumable
		for _, c := range chans {
			if r := c.resumable(); r != nil {
				resumes = append(resumes, r)
			}
			c.stop()
		}
		s.srv.remember(s, resumes)
		_ = s.conn.Close(code, reason)
	})
}

// receive decodes one frame and dispatches it. A frame that is no
// message, or too big, is answered with an error reply and changes
// nothing else: the socket, its channels and every other socket go on.
func (s *socket) receive(typ websocket.MessageType, data []byte) {
	var m message
	var err error
	if typ == websocket.MessageBinary {
		if s.vsn != vsn2 {
			err = errMalformed
		} else {
			m, err = decodeBinary(data)
		}
	} else {
		m, err = decodeText(s.vsn, data)
	}
	if err != nil {
		// Supabase logs these as MalformedWebSocketMessage
		// (lib/realtime_web/socket.ex) and answers nothing; pgrest
		// answers on the topic "phoenix" with no ref, so the client can
		// see why, and a Phoenix client ignores it.
		s.push(null, null, "phoenix", "phx_reply", map[string]any{"status": "error",
			"response": map[string]string{"reason": "MalformedWebSocketMessage: " + err.Error()}})
		return
	}
	if len(data) > s.srv.cfg.MaxMessageBytes {
		// Supabase's BroadcastHandler replies {:error, :payload_size_exceeded}.
		s.errorReply(m, "payload_size_exceeded")
		return
	}
	switch {
	case m.Topic == "phoenix" && m.Event == "heartbeat":
		s.reply(m, "ok", emptyObject)
	case m.Event == "phx_join":
		s.join(m)
	default:
		s.mu.Lock()
		c := s.channels[m.Topic]
		s.mu.Unlock()
		if c == nil || !c.matches(m.JoinRef) {
			// Phoenix.Socket's answer to a message for a topic the socket
			// has not joined.
			s.errorReply(m, "unmatched topic")
			return
		}
		c.handle(m)
	}
}
