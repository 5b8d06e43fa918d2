package changes

import (
	"encoding/json"
	"time"
)

// Config is what the operator configures. Every field but the first
// three has a usable zero value.
type Config struct {
	// ConnString is the authenticator's db_uri; the feed adds
	// replication=database itself for its replication connection.
	ConnString string
	// Publication is an existing publication, e.g. "pgrest_realtime".
	Publication string
	// SlotName is this node's logical replication slot: created at
	// Start (or taken over when a crashed run left it), dropped at
	// Close. Several nodes on one database each need their own.
	SlotName string
	// SubscriberQueue bounds the deliveries waiting for one
	// subscription's deliver; a subscription that falls this far
	// behind is closed (Subscription.Err says why). 0 means 1024. The
	// feed hands over a round of up to 64 transactions at once, so the
	// bound must exceed the rows a subscriber may receive from one
	// round, or a burst cuts off even a consumer that keeps up.
	SubscriberQueue int
	// MaxRecordBytes is Supabase Realtime's max_record_bytes: a change
	// whose values are larger is sent with only its values of at most
	// 64 bytes and the error "Error 413: Payload Too Large". 0 means
	// 1 MiB, Supabase's default.
	MaxRecordBytes int
	// ReconnectMax caps the backoff between reconnections of the
	// replication stream after a lost connection. 0 means 5 seconds,
	// as Supabase's poller.
	ReconnectMax time.Duration
	// StatusInterval is how often the feed tells PostgreSQL how far it
	// has delivered (the standby status update). 0 means 10 seconds,
	// as pg_recvlogical.
	StatusInterval time.Duration
	// ReplayWindow is how long the feed keeps the changes it dispatched,
	// for subscriptions that resume after a dropped socket
	// (SubscribeFrom). 0 keeps none: a resumed subscription then gets
	// only the changes it would have got live.
	ReplayWindow time.Duration
	// ReplayMaxBytes bounds the replay window's memory, as the values'
	// bytes and a fixed cost per change; past it the oldest go first.
	// 0 means 32 MiB.
	ReplayMaxBytes int
}

// withDefaults fills the zero values.
func (c Config) withDefaults() Config {
	if c.SubscriberQueue <= 0 {
		c.SubscriberQueue = 1024
	}
	if c.MaxRecordBytes <= 0 {
		c.MaxRecordBytes = 1024 * 1024
	}
	if c.ReconnectMax <= 0 {
		c.ReconnectMax = 5 * time.Second
	}
	if c.StatusInterval <= 0 {
		c.StatusInterval = 10 * time.Second
	}
	if c.ReplayMaxBytes <= 0 {
		c.ReplayMaxBytes = 32 << 20
	}
	return c
}

// Identity is who subscribes: the role the token gives (or db_anon_role)
// and the verified claims as JSON (what pgrest sets as
// request.jwt.claims).
type Identity struct {
	Role   string
	Claims []byte
}

// key groups subscriptions that share an identity: one authorization
// query serves them all.
func (id Identity) key() string { return id.Role + "\x00" + string(id.Claims) }

// Spec is one entry of a join's config.postgres_changes, as the client
// sends it: {"event":"INSERT"|"UPDATE"|"DELETE"|"*","schema":"public",
// "table":"todos","filter":"id=eq.5"}.
type Spec struct{ Event, Schema, Table, Filter string }

// Bound is one accepted spec with the id the server gives it (sent back
// in the join's phx_reply and in each delivery's "ids").
type Bound struct {
	ID   uint32
	Spec Spec
}

// Delivery is one change for one subscription: the IDs of its specs that
// match, and Data, the object Supabase Realtime sends as payload.data.
//
// Data has Realtime's wire shape, not the shape supabase-js hands to the
// application callback: {"columns":[{"name":..,"type":..}],
// "commit_timestamp":..,"errors":..,"schema":..,"table":..,
// "type":"INSERT"|"UPDATE"|"DELETE","record":{..},"old_record":{..}}.
// realtime-js (RealtimeChannel._trigger and _getPayloadRecords) turns
// type, record and old_record into eventType, new and old itself, and
// matches a binding by data.type; sent already renamed, the client
// would match nothing.
type Delivery struct {
	IDs  []uint32
	Data json.RawMessage
	// Pos is the change's position: where a subscription that has it
	// resumes after (SubscribeFrom).
	Pos Position
}

// SubscribeError is a subscription refused; Message is the text Supabase
// Realtime replies with in the same case.
type SubscribeError struct{ Message string }

func (e *SubscribeError) Error() string { return e.Message }
