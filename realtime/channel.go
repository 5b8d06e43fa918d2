package realtime

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/pgrest/caddy-pgrest/executor"
)

// joinTimeout bounds the database work of a join (authorization checks,
// the change feed's validation).
const joinTimeout = 10 * time.Second

// joinPayload is phx_join's payload as realtime-js's RealtimeChannel.subscribe
// sends it.
type joinPayload struct {
	Config struct {
		Broadcast struct {
			Self bool `json:"self"`
			Ack  bool `json:"ack"`
		} `json:"broadcast"`
		Presence struct {
			Key     string `json:"key"`
			Enabled bool   `json:"enabled"`
		} `json:"presence"`
		PostgresChanges []*joinSpec `json:"postgres_changes"`
		Private         bool        `json:"private"`
	} `json:"config"`
	AccessToken *string `json:"access_token"`
	UserToken   *string `json:"user_token"`
}

// channel is one joined topic of a socket.
type channel struct {
	s       *socket
	topic   string // as joined: realtime:<sub>
	sub     string
	key     hubKey
	joinRef json.RawMessage
	self    bool
	ack     bool
	// presenceKey is the key this channel's presence is tracked under:
	// config.presence.key, else a random one, as Supabase's
	// Join.presence_key gives an empty key a UUID.
	presenceKey string

	mu              sync.Mutex
	id              identity
	presenceEnabled bool
	readBroadcast   bool
	// readPresence says the channel may receive presence (presence_state
	// and presence_diff): always on a public channel; on a private one
	// when the SELECT policies show a probe row of extension presence.
	// presenceChecked says that check was made: a private join without
	// presence leaves it to the track that enables presence, as Supabase
	// does (presence_handler.ex's maybe_authorize_presence_read).
	readPresence    bool
	presenceChecked bool
	// canWrite caches the INSERT check of a private channel's
	// broadcasts and tracks; nil until first needed.
	canWrite map[string]bool
	expiry   *time.Timer
	changes  ChangeSubscription
	sink     *changeSink
	// resumeKey is what a rejoin after a dropped socket matches to
	// resume the changes ("" when it cannot, resume.go).
	resumeKey string
	// specs are the join's postgres_changes, kept to subscribe again
	// when a refreshed token may see what the first could not.
	specs   []ChangeSpec
	stopped bool
	// quit is closed when the channel stops.
	quit chan struct{}
}

// matches says whether a message's join_ref is this channel's (a null
// join_ref, as old clients send, matches).
func (c *channel) matches(joinRef json.RawMessage) bool {
	return string(joinRef) == "null" || string(joinRef) == string(c.joinRef)
}

// join handles phx_join: the token, the limits, a private channel's read
// authorization and the postgres_changes subscription, then the reply
// with the subscription ids, presence_state and the "Subscribed to
// PostgreSQL" system message (realtime_channel.ex's join/3).
func (s *socket) join(m message) {
	sub, ok := strings.CutPrefix(m.Topic, "realtime:")
	if !ok {
		// No channel route matches (user_socket.ex routes "realtime:*").
		s.errorReply(m, "unmatched topic")
		return
	}
	if sub == "" {
		s.errorReply(m, "TopicNameRequired: You must provide a topic name")
		return
	}
	var p joinPayload
	if err := json.Unmarshal(m.Payload, &p); err != nil {
		// Supabase logs InvalidJoinPayload and joins with the defaults.
		p = joinPayload{}
	}
	s.mu.Lock()
	old := s.channels[m.Topic]
	if old != nil {
		delete(s.channels, m.Topic)
	}
	count := len(s.channels)
	s.mu.Unlock()
	if old != nil {
		// Phoenix closes a channel joined again on the same topic.
		old.stop()
		s.push(old.joinRef, old.joinRef, old.topic, "phx_close", emptyObject)
	}
	if count >= s.srv.cfg.MaxChannels {
		s.errorReply(m, "ChannelRateLimitReached: Too many channels")
		return
	}

	id := s.id
	if tok := tokenOf(p); tok != "" && !strings.HasPrefix(tok, "sb_") && tok != s.id.token {
		var terr *tokenError
		if id, terr = s.srv.authenticate(tok); terr != nil {
			s.errorReply(m, terr.reason())
			return
		}
	}
	if reason := s.srv.refuseRole(id); reason != "" {
		s.errorReply(m, reason)
		return
	}

	c := &channel{s: s, topic: m.Topic, sub: sub, key: hubKey{topic: sub, private: p.Config.Private},
		joinRef: m.JoinRef, self: p.Config.Broadcast.Self, ack: p.Config.Broadcast.Ack,
		presenceKey: p.Config.Presence.Key, id: id, presenceEnabled: p.Config.Presence.Enabled, readBroadcast: true,
		readPresence: true, presenceChecked: true, quit: make(chan struct{})}
	if c.presenceKey == "" {
		c.presenceKey = randomRef()
	}
	ctx, cancel := context.WithTimeout(s.srv.ctx, joinTimeout)
	defer cancel()
	if c.key.private {
		read, err := s.srv.authorizeRead(ctx, c.sub, id, c.presenceEnabled)
		if err != nil {
			s.srv.log.Warn("realtime authorization failed", zap.String("topic", sub), zap.Error(err))
			// realtime_channel.ex: {:error, :unable_to_set_policies, _}
			s.errorReply(m, "Realtime was unable to connect to the project database")
			return
		}
		if !read.broadcast && !read.presence {
			s.errorReply(m, "Unauthorized: You do not have permissions to read from this Channel topic: "+sub)
			return
		}
		c.readBroadcast = read.broadcast
		c.readPresence, c.presenceChecked = read.presence, c.presenceEnabled
	}

	c.specs = compactSpecs(p.Config.PostgresChanges)
	var sink *changeSink
	var subscribeErr string
	if len(c.specs) > 0 {
		if s.srv.cfg.Feed == nil {
			// The code of realtime_channel.ex's fatal postgres_changes
			// errors, with pgrest's reason.
			s.errorReply(m, "RealtimeDisabledForConfiguration: postgres_changes is not enabled on this server (realtime_publication)")
			return
		}
		c.resumeKey = s.srv.resumeKey(id, c.key, c.specs)
		sink, subscribeErr = c.subscribeChanges(ctx, id, s.srv.takeResume(ctx, c.resumeKey))
	}
	if c.presenceEnabled {
		// On a node that just started: the other nodes' presences first.
		s.srv.bus.peers.wait(ctx)
	}
	s.mu.Lock()
	select {
	case <-s.done:
		s.mu.Unlock()
		c.stop()
		return
	default:
	}
	s.channels[m.Topic] = c
	s.mu.Unlock()

	s.srv.hub.add(c, s.replyFrame(m, "ok", map[string]any{"postgres_changes": c.boundReplies()}))
	c.mu.Lock()
	c.armExpiry()
	presence := c.presenceEnabled
	c.mu.Unlock()
	switch {
	case sink != nil:
		c.system("postgres_changes", "ok", "Subscribed to PostgreSQL")
		sink.open()
	case subscribeErr != "":
		// Supabase joins, then says why its subscription failed
		// (realtime_channel.ex's :postgres_subscribe), and subscribes
		// again with the next access_token: realtime-js joins before
		// its token callback has answered, and sends the token next.
		c.system("postgres_changes", "error", subscribeErr)
	}
	if presence {
		c.pushPresenceState()
	}
}

// tokenOf is a join's own token: access_token, else user_token
// (realtime_channel.ex's assign_access_token).
func tokenOf(p joinPayload) string {
	if p.AccessToken != nil && *p.AccessToken != "" {
		return *p.AccessToken
	}
	if p.UserToken != nil {
		return *p.UserToken
	}
	return ""
}

// refuseRole refuses a token whose role would run as the authenticator,
// as REST refuses it (executor.RunsAsAuthenticator).
func (srv *Server) refuseRole(id identity) string {
	if (id.RoleClaimed || id.Authenticated) && executor.RunsAsAuthenticator(id.Role, srv.cfg.Authenticator) {
		return `Unauthorized: permission denied to set role "` + id.Role + `"`
	}
	return ""
}

// handle dispatches a message of a joined channel.
func (c *channel) handle(m message) {
	switch m.Event {
	case "phx_leave":
		c.s.reply(m, "ok", emptyObject)
		c.end()
	case "access_token":
		c.refresh(m)
	case "broadcast":
		c.broadcast(m)
	case "presence":
		c.presence(m)
	default:
		// Supabase logs "Unexpected message from client of type …" and
		// answers nothing (realtime_channel.ex's last handle_in).
	}
}

// end closes the channel from the server's side: phx_close, with the
// join ref as ref, as Phoenix.Socket sends it when a channel stops.
func (c *channel) end() {
	c.s.mu.Lock()
	if c.s.channels[c.topic] == c {
		delete(c.s.channels, c.topic)
	}
	c.s.mu.Unlock()
	c.stop()
	c.s.push(c.joinRef, c.joinRef, c.topic, "phx_close", emptyObject)
}

// shutdown is realtime_channel.ex's shutdown_response: a system message
// with the reason, then the channel stops.
func (c *channel) shutdown(msg string) {
	c.system("system", "error", msg)
	c.end()
}

// system pushes a system message as push_system_message does.
func (c *channel) system(extension, status, msg string) {
	c.s.push(c.joinRef, null, c.topic, "system", map[string]string{
		"extension": extension, "status": status, "message": msg, "channel": c.sub})
}

// stop leaves the hub, untracks presence and ends the change
// subscription and the expiry timer; it sends nothing.
func (c *channel) stop() {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	c.stopped = true
	close(c.quit)
	if c.expiry != nil {
		c.expiry.Stop()
	}
	subscription := c.changes
	c.changes = nil
	c.mu.Unlock()
	c.s.srv.hub.remove(c)
	if subscription != nil {
		subscription.Close()
	}
}

// watchChanges tells the client when the feed ends its subscription (it
// fell too far behind, or the feed stopped), with a postgres_changes
// system message as Supabase sends for its subscription errors.
func (c *channel) watchChanges(sub ChangeSubscription) {
	select {
	case <-c.quit:
	case <-sub.Done():
		msg := "Unable to subscribe to changes"
		if err := sub.Err(); err != nil {
			msg = err.Error()
		}
		select {
		case <-c.quit:
		default:
			c.system("postgres_changes", "error", msg)
		}
	}
}

// armExpiry closes the channel when its token expires, with Supabase's
// message (confirm_token's timer). c.mu is held.
func (c *channel) armExpiry() {
	if c.expiry != nil {
		c.expiry.Stop()
		c.expiry = nil
	}
	exp := c.id.exp
	if exp.IsZero() {
		return
	}
	token := c.id.token
	c.expiry = time.AfterFunc(time.Until(exp), func() {
		c.mu.Lock()
		current := c.id.token == token && !c.stopped
		c.mu.Unlock()
		if current {
			c.shutdown(expiredError(exp).message)
		}
	})
}

// refresh handles access_token (realtime_channel.ex's handle_in
// "access_token" and apply_access_token): the same token, a null one or
// an opaque key change nothing; a refused token closes the channel; a
// private channel whose read permission the new token loses closes.
func (c *channel) refresh(m message) {
	var p struct {
		AccessToken *string `json:"access_token"`
	}
	if json.Unmarshal(m.Payload, &p) != nil || p.AccessToken == nil || *p.AccessToken == "" ||
		strings.HasPrefix(*p.AccessToken, "sb_") {
		return
	}
	c.mu.Lock()
	same := *p.AccessToken == c.id.token
	c.mu.Unlock()
	if same {
		return
	}
	id, terr := c.s.srv.authenticate(*p.AccessToken)
	if terr != nil {
		c.shutdown(terr.message)
		return
	}
	if reason := c.s.srv.refuseRole(id); reason != "" {
		c.shutdown(strings.TrimPrefix(reason, "Unauthorized: "))
		return
	}
	if c.key.private {
		ctx, cancel := context.WithTimeout(c.s.srv.ctx, joinTimeout)
		c.mu.Lock()
		presence := c.presenceEnabled
		hadRead := c.readBroadcast
		hadPresence := c.presenceChecked && c.readPresence
		c.mu.Unlock()
		read, err := c.s.srv.authorizeRead(ctx, c.sub, id, presence)
		cancel()
		if err != nil {
			c.shutdown("Realtime was unable to connect to the project database")
			return
		}
		// Either read permission lost closes the channel
		// (realtime_channel.ex's check_read_permissions_revoked).
		if (hadRead && !read.broadcast) || (hadPresence && !read.presence) || (!read.broadcast && !read.presence) {
			c.shutdown("You no longer have permission to read from this Channel topic: " + c.sub)
			return
		}
		c.mu.Lock()
		c.readBroadcast = read.broadcast
		c.readPresence, c.presenceChecked = read.presence, presence
		c.mu.Unlock()
	}
	c.mu.Lock()
	c.id = id
	c.canWrite = nil
	c.armExpiry()
	subscription := c.changes
	retry := subscription == nil && len(c.specs) > 0 && !c.stopped
	c.mu.Unlock()
	if subscription != nil {
		subscription.SetIdentity(changeIdentity(id))
	}
	if retry {
		ctx, cancel := context.WithTimeout(c.s.srv.ctx, joinTimeout)
		sink, msg := c.subscribeChanges(ctx, id, ChangePosition{})
		cancel()
		if sink != nil {
			c.system("postgres_changes", "ok", "Subscribed to PostgreSQL")
			sink.open()
		} else {
			c.system("postgres_changes", "error", msg)
		}
	}
}

// mayWrite says whether a private channel's role may send on extension
// (broadcast or presence), checked once per token.
func (c *channel) mayWrite(extension string) bool {
	if !c.key.private {
		return true
	}
	c.mu.Lock()
	if ok, known := c.canWrite[extension]; known {
		c.mu.Unlock()
		return ok
	}
	id := c.id
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(c.s.srv.ctx, joinTimeout)
	defer cancel()
	ok, err := c.s.srv.authorizeWrite(ctx, c.sub, extension, id)
	if err != nil {
		c.s.srv.log.Warn("realtime write authorization failed", zap.String("topic", c.sub), zap.Error(err))
		return false
	}
	c.mu.Lock()
	if c.canWrite == nil {
		c.canWrite = map[string]bool{}
	}
	c.canWrite[extension] = ok
	c.mu.Unlock()
	return ok
}

// mayReadPresenceChecked makes sure, before a track enables presence on
// a private channel joined without it, that the channel's presence read
// permission was checked, so that it receives presence only if allowed
// (a role may be allowed to track and not to see who else is there). It
// says false when the check failed.
func (c *channel) mayReadPresenceChecked() bool {
	c.mu.Lock()
	checked, id := c.presenceChecked, c.id
	c.mu.Unlock()
	if checked {
		return true
	}
	ctx, cancel := context.WithTimeout(c.s.srv.ctx, joinTimeout)
	defer cancel()
	read, err := c.s.srv.authorizeRead(ctx, c.sub, id, true)
	if err != nil {
		c.s.srv.log.Warn("realtime presence authorization failed", zap.String("topic", c.sub), zap.Error(err))
		return false
	}
	c.mu.Lock()
	c.readPresence, c.presenceChecked = read.presence, true
	c.mu.Unlock()
	return true
}

// broadcast handles a client's broadcast (BroadcastHandler.handle): to
// every channel of the topic, this one too with config.broadcast.self,
// on this node and the others; with config.broadcast.ack the push is
// answered. A private channel's role must pass the INSERT check; if not,
// the message is dropped unanswered, as Supabase drops it.
func (c *channel) broadcast(m message) {
	if !c.mayWrite("broadcast") {
		return
	}
	var p struct {
		Event   string          `json:"event"`
		Payload json.RawMessage `json:"payload"`
		Meta    json.RawMessage `json:"meta"`
	}
	_ = json.Unmarshal(m.Payload, &p)
	b := &outBroadcast{key: c.key, event: p.Event, payload: p.Payload, meta: p.Meta,
		binary: m.binary, isBinary: m.isBinary}
	if !b.isBinary && len(b.payload) == 0 {
		b.payload = emptyObject
	}
	var except *channel
	if !c.self {
		except = c
	}
	c.s.srv.hub.broadcast(b, except)
	c.s.srv.bus.publishBroadcast(b)
	if c.ack {
		c.s.reply(m, "ok", emptyObject)
	}
}

// presence handles track and untrack (PresenceHandler.handle).
func (c *channel) presence(m message) {
	var p struct {
		Event   string          `json:"event"`
		Payload json.RawMessage `json:"payload"`
	}
	_ = json.Unmarshal(m.Payload, &p)
	switch p.Event {
	case "track":
		if !c.mayReadPresenceChecked() || !c.mayWrite("presence") {
			c.s.reply(m, "error", emptyObject)
			return
		}
		payload := p.Payload
		if len(payload) == 0 || string(payload) == "null" {
			payload = emptyObject
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(payload, &obj) != nil {
			c.s.errorReply(m, "Presence track payload must be a map")
			return
		}
		c.mu.Lock()
		enabling := !c.presenceEnabled
		c.presenceEnabled = true
		c.mu.Unlock()
		// The reply goes first, as Phoenix answers the push before the
		// tracker's diff goes round (realtime_channel.ex's handle_in
		// "presence" returns {:reply, :ok, socket}).
		c.s.reply(m, "ok", emptyObject)
		if enabling {
			// A track enables presence for a socket that joined without
			// it: it gets the state before its own diff, without which
			// realtime-js holds every diff back (Supabase sends none),
			// on a node that just started once the other nodes have
			// reported theirs, as a join with presence waits for.
			c.s.srv.bus.peers.wait(c.s.srv.ctx)
			c.pushPresenceState()
		}
		c.s.srv.hub.track(c, obj)
	case "untrack":
		c.s.reply(m, "ok", emptyObject)
		c.s.srv.hub.untrack(c)
	default:
		// UnknownPresenceEvent: Supabase replies :error.
		c.s.reply(m, "error", emptyObject)
	}
}

// randomRef makes a presence key or a phx_ref.
func randomRef() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
