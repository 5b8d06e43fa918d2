// Package realtime serves Supabase Realtime's WebSocket protocol beside
// pgrest's REST API, so that supabase-js's supabase.channel(...) works
// against pgrest unchanged: Broadcast (between clients, and from SQL
// through realtime.send), Presence, Postgres Changes (through the change
// feed of realtime/changes) and private channels authorized by row-level
// security on realtime.messages, as Supabase's Realtime Authorization.
//
// The protocol is Phoenix's, as Supabase's realtime server (supabase/realtime)
// speaks it and @supabase/realtime-js 2.x sends it: frames of
// [join_ref, ref, topic, event, payload] (serializer vsn 2.0.0, with the
// binary broadcast frames) or JSON objects (vsn 1.0.0); phx_join,
// phx_reply, phx_leave, phx_close, heartbeat on the topic "phoenix",
// access_token, broadcast, presence, presence_state, presence_diff,
// postgres_changes and system messages. Messages and error texts are
// Supabase's; each is marked with where in supabase/realtime it comes
// from.
//
// Several pgrest nodes on one database make one realtime service: each
// node publishes what its sockets send (broadcasts, presence changes)
// with NOTIFY on the channel pgrest_realtime and delivers what the others
// publish (bus.go). PostgreSQL is the only thing the nodes share.
//
// Files: frame.go (the two serializers and the binary frames), server.go
// (the HTTP upgrade and the socket's lifetime), socket.go (a socket's
// reader, bounded writer and dispatch), channel.go (joins, leaves, tokens),
// hub.go (the topics and local delivery), presence.go, bus.go (NOTIFY
// between nodes), authorize.go (private channels), token.go (the socket's
// tokens and Supabase's texts for them), changes.go (the seam to the
// change feed), sql.go (realtime.sql, which the operator installs).
package realtime
