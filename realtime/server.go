package realtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"

	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"
)

// Defaults of the limits, as caddymodule documents them.
const (
	// DefaultPath is where supabase-js connects: <url>/realtime/v1/websocket.
	DefaultPath = "/realtime/v1/websocket"
	// DefaultMaxMessageBytes is the largest frame a client may send.
	// Supabase's tenants default to max_payload_size_in_kb 3000; pgrest
	// keeps a socket's memory smaller by default.
	DefaultMaxMessageBytes = 1 << 20
	// DefaultQueueFrames is how many frames a socket's outbound queue
	// holds before the socket is disconnected as a slow consumer.
	DefaultQueueFrames = 1024
	// DefaultMaxChannels is the most channels one socket may join:
	// Supabase's max_channels_per_client default.
	DefaultMaxChannels = 100
	// DefaultResumeWindow is how long a client whose socket dropped may
	// rejoin and get the changes it missed: realtime-js reconnects
	// within seconds (1, 2, 5, then 10 between attempts).
	DefaultResumeWindow = 30 * time.Second
)

// Config is what a Server needs.
type Config struct {
	// Pool runs authorization checks and publishes to the other nodes.
	Pool *pgxpool.Pool
	// ListenConfig is where the bus listens (db_channel_uri's or the
	// pool's connection settings); nil turns the bus off (one node).
	ListenConfig *pgx.ConnConfig
	// Authenticate verifies tokens as REST does.
	Authenticate Authenticator
	// Authenticator is db_uri's user, whose name a token's role may not
	// take (executor.RunsAsAuthenticator).
	Authenticator string
	// Node names this node in its messages to the others; a random
	// suffix keeps two processes of one name apart.
	Node string
	// MaxMessageBytes, QueueFrames and MaxChannels are the limits; zero
	// takes the default.
	MaxMessageBytes int
	QueueFrames     int
	MaxChannels     int
	// Feed serves postgres_changes; nil refuses them.
	Feed ChangeFeed
	// ResumeWindow is how long a channel whose socket dropped may be
	// rejoined with the changes it missed (resume.go); 0 turns resuming
	// off. The feed's replay window should be as long.
	ResumeWindow time.Duration
	// LegacyClaims sets request.jwt.claim.<name> per claim instead of
	// request.jwt.claims in authorization checks (db_legacy_claims).
	LegacyClaims bool
	Logger       *zap.Logger
}

// Server serves the realtime socket.
type Server struct {
	cfg    Config
	log    *zap.Logger
	hub    *hub
	bus    *bus
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	sockets map[*socket]struct{}
	wg      sync.WaitGroup

	// saving are the resume points being stored, by key; saves counts
	// them for Close.
	resumeMu sync.Mutex
	saving   map[string]chan struct{}
	saves    sync.WaitGroup
	// resumeMissing logs once that the resume functions are missing.
	resumeMissing sync.Once
}

// New makes a Server and starts its bus.
func New(cfg Config) *Server {
	if cfg.MaxMessageBytes <= 0 {
		cfg.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if cfg.QueueFrames <= 0 {
		cfg.QueueFrames = DefaultQueueFrames
	}
	if cfg.MaxChannels <= 0 {
		cfg.MaxChannels = DefaultMaxChannels
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	node := cfg.Node
	if node == "" {
		node = "pgrest"
	}
	cfg.Node = node + "-" + hex.EncodeToString(suffix)
	ctx, cancel := context.WithCancel(context.Background())
	srv := &Server{cfg: cfg, log: cfg.Logger, ctx: ctx, cancel: cancel, sockets: map[*socket]struct{}{},
		saving: map[string]chan struct{}{}}
	srv.hub = newHub(srv)
	srv.bus = newBus(srv)
	srv.bus.start()
	return srv
}

// Node is this node's id in the messages between nodes.
func (srv *Server) Node() string { return srv.cfg.Node }

// ServeHTTP upgrades a request to a realtime socket. The apikey query
// parameter is the socket's token (supabase-js sends the project key
// there); vsn picks the serializer.
func (srv *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	vsn := q.Get("vsn")
	switch vsn {
	case "", vsn1:
		// Phoenix's default serializer is 1.0.0 when vsn is absent.
		vsn = vsn1
	case vsn2:
	default:
		writeConnectError(w, http.StatusBadRequest, "Unsupported serializer version: "+vsn)
		return
	}
	token := q.Get("apikey")
	if token == "" {
		token = r.Header.Get("X-Api-Key")
	}
	id, terr := srv.authenticate(token)
	if terr != nil {
		writeConnectError(w, terr.status, terr.connect)
		return
	}
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		// Browsers send their page's Origin; the socket authorizes by
		// token, never by cookie, so any origin may connect, as to
		// Supabase's.
		InsecureSkipVerify: true,
		CompressionMode:    websocket.CompressionDisabled,
	})
	if err != nil {
		return // Accept wrote the answer
	}
	s := newSocket(srv, conn, vsn, id)
	if !srv.add(s) {
		_ = conn.Close(websocket.StatusGoingAway, "server shutting down")
		return
	}
	defer srv.remove(s)
	s.run(srv.ctx)
}

// writeConnectError answers a refused upgrade as Supabase's
// UserSocket.handle_error does: a JSON object with "error".
func writeConnectError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func (srv *Server) add(s *socket) bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.ctx.Err() != nil {
		return false
	}
	srv.sockets[s] = struct{}{}
	srv.wg.Add(1)
	return true
}

func (srv *Server) remove(s *socket) {
	srv.mu.Lock()
	delete(srv.sockets, s)
	srv.mu.Unlock()
	srv.wg.Done()
}

// Sockets is how many sockets are open.
func (srv *Server) Sockets() int {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return len(srv.sockets)
}

// Close closes every socket (clients reconnect, to the next config after
// a Caddy reload), tells the other nodes this node's presences left, and
// stops the bus.
func (srv *Server) Close() error {
	srv.mu.Lock()
	srv.cancel()
	open := make([]*socket, 0, len(srv.sockets))
	for s := range srv.sockets {
		open = append(open, s)
	}
	srv.mu.Unlock()
	for _, s := range open {
		s.close(websocket.StatusGoingAway, "server shutting down")
	}
	done := make(chan struct{})
	go func() { srv.wg.Wait(); srv.saves.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		srv.log.Warn("realtime sockets still closing")
	}
	srv.bus.stop()
	return nil
}

func (srv *Server) logf(msg string, fields ...zap.Field) {
	if ce := srv.log.Check(zap.DebugLevel, msg); ce != nil {
		ce.Write(fields...)
	}
}
