package caddymodule

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/jackc/pgx/v5"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/jwtauth"
	"github.com/pgrest/caddy-pgrest/realtime"
)

// RealtimeSettings serve Supabase Realtime's WebSocket protocol beside
// the REST API, from the same pool and token verifier (see the README's
// Realtime section). Off unless realtime_enabled.
type RealtimeSettings struct {
	// Serves the realtime socket at realtime_path. Default: false.
	RealtimeEnabled bool `json:"realtime_enabled,omitempty"`

	// The path of the socket, as the handler sees it (after a
	// handle_path strips its prefix). Default: /realtime/v1/websocket,
	// where supabase-js connects.
	RealtimePath string `json:"realtime_path,omitempty"`

	// An existing publication whose tables' changes postgres_changes
	// serves; empty (default) refuses postgres_changes.
	RealtimePublication string `json:"realtime_publication,omitempty"`

	// This node's name: the change feed's replication slot is named
	// after it, so that several nodes on one database each have their
	// own. Default: the host name.
	RealtimeNodeName string `json:"realtime_node_name,omitempty"`

	// The largest message a client may send; a larger one is answered
	// with an error reply. Default: 1MiB.
	RealtimeMaxMessageSize int64 `json:"realtime_max_message_size,omitempty"`

	// How many messages a socket's outbound queue holds; a socket that
	// falls that far behind is disconnected. Default: 1024.
	RealtimeQueueSize int `json:"realtime_queue_size,omitempty"`

	// The most channels one socket may join. Default: 100.
	RealtimeMaxChannels int `json:"realtime_max_channels,omitempty"`

	// How long a client whose socket dropped may rejoin its channels
	// and get the postgres_changes committed meanwhile; each node keeps
	// the changes it dispatched that long (at most 32 MiB of them).
	// Default: 30s.
	RealtimeResumeWindow caddy.Duration `json:"realtime_resume_window,omitempty"`
}

// checkRealtimePath refuses a realtime_path that is no absolute path.
func checkRealtimePath(h *Handler) error {
	if h.RealtimeEnabled && !strings.HasPrefix(h.RealtimePath, "/") {
		return fmt.Errorf("realtime_path: must start with /, got %q", h.RealtimePath)
	}
	return nil
}

// startRealtime starts the realtime server of a provisioned handler,
// when realtime_enabled.
func (h *Handler) startRealtime() error {
	if !h.RealtimeEnabled {
		return nil
	}
	listen := h.pool.Config().ConnConfig.Copy()
	if h.live.channelURI != "" {
		var err error
		if listen, err = pgx.ParseConfig(h.live.channelURI); err != nil {
			return fmt.Errorf("realtime: parsing db_channel_uri: %w", err)
		}
	}
	node := h.RealtimeNodeName
	if node == "" {
		node, _ = os.Hostname()
	}
	live := h.live
	feed, err := h.startChangeFeed(node)
	if err != nil {
		return err
	}
	h.realtime = realtime.New(realtime.Config{
		Pool:         h.pool.Pool,
		ListenConfig: listen,
		Authenticate: func(authorization string) (jwtauth.Identity, *apierr.Error) {
			return live.current.Load().verifier.Authenticate(authorization)
		},
		Authenticator:   live.authenticator,
		Node:            node,
		MaxMessageBytes: int(h.RealtimeMaxMessageSize),
		QueueFrames:     h.RealtimeQueueSize,
		MaxChannels:     h.RealtimeMaxChannels,
		Feed:            feed,
		ResumeWindow:    time.Duration(h.RealtimeResumeWindow),
		Logger:          h.logger.Named("realtime"),
	})
	return nil
}

// serveRealtime serves the socket when the request is for it.
func (h *Handler) serveRealtime(w http.ResponseWriter, r *http.Request) bool {
	if h.realtime == nil || r.URL.Path != h.RealtimePath {
		return false
	}
	h.realtime.ServeHTTP(w, r)
	return true
}

// stopRealtime closes the sockets and the change feed.
func (h *Handler) stopRealtime() {
	if h.realtime != nil {
		_ = h.realtime.Close()
		h.realtime = nil
	}
	if h.changeFeedClose != nil {
		_ = h.changeFeedClose()
		h.changeFeedClose = nil
	}
}
