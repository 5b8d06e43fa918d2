package realtimesocket

import (
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// presencePoliciesSQL lets every user read broadcasts and track presence
// on the private topics "presence-auth-*", and only the user p-reader
// see presence there (Supabase's Realtime Authorization: SELECT on
// extension 'presence' is presence's read permission).
const presencePoliciesSQL = `
drop policy if exists presence_auth_read on realtime.messages;
create policy presence_auth_read on realtime.messages for select to webuser
  using (realtime.topic() like 'presence-auth-%'
         and (extension = 'broadcast' or current_setting('request.jwt.claims', true)::json->>'sub' = 'p-reader'));
drop policy if exists presence_auth_track on realtime.messages;
create policy presence_auth_track on realtime.messages for insert to webuser
  with check (realtime.topic() like 'presence-auth-%' and extension = 'presence');
`

// noPresenceUntilReply reads what c has until the reply to ref, fails on
// any presence message, and returns the reply's status.
func noPresenceUntilReply(t *testing.T, c *client, ref, who string) string {
	t.Helper()
	for {
		m := c.read()
		if m.Event == "presence_state" || m.Event == "presence_diff" {
			t.Errorf("%s, who may not read presence, got %s %v", who, m.Event, m.Payload)
		}
		if m.Event == "phx_reply" && m.Ref == ref {
			status, _ := m.Payload["status"].(string)
			return status
		}
	}
}

// noPresenceUntilHeartbeat is noPresenceUntilReply of a heartbeat sent
// now: the socket handles its messages in order, so what its own earlier
// pushes caused is there before the reply.
func noPresenceUntilHeartbeat(t *testing.T, c *client, who string) {
	t.Helper()
	noPresenceUntilReply(t, c, c.send("", "phoenix", "heartbeat", map[string]any{}), who)
}

// On a private channel, presence (presence_state and presence_diff)
// reaches only the channels whose role may read it, as on Supabase: a
// role that may read broadcasts and track its own presence, but not
// read presence, joins, tracks, and hears of nobody's presence, whether
// it joined with presence or its track enabled it.
func TestPrivatePresenceNeedsItsReadPermission(t *testing.T) {
	execSQL(t, presencePoliciesSQL)
	s := pgresttest.StartWith(t, directives(), pgresttest.Options{})
	const topic = "realtime:presence-auth-1"
	reader := dial(t, s, userToken(t, "p-reader"), "2.0.0")
	reader.join(topic, config(false, false, "reader", true, true))
	reader.expect(topic, "presence_state")

	withPresence := dial(t, s, userToken(t, "p-blind"), "2.0.0")
	ref := withPresence.join(topic, config(false, false, "blind-a", true, true))
	noPresenceUntilHeartbeat(t, withPresence, "a join with presence")
	track := withPresence.send(ref, topic, "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"v": "a"}})
	if status := noPresenceUntilReply(t, withPresence, track, "a join with presence, tracking"); status != "ok" {
		t.Fatalf("a track the INSERT policy allows: %s", status)
	}
	noPresenceUntilHeartbeat(t, withPresence, "a join with presence, after its track")

	trackOnly := dial(t, s, userToken(t, "p-blind"), "1.0.0")
	ref = trackOnly.join(topic, config(false, false, "blind-b", false, true))
	track = trackOnly.send(ref, topic, "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"v": "b"}})
	if status := noPresenceUntilReply(t, trackOnly, track, "a join whose track enables presence"); status != "ok" {
		t.Fatalf("a track the INSERT policy allows: %s", status)
	}
	noPresenceUntilHeartbeat(t, trackOnly, "a join whose track enabled presence")

	// The reader sees both tracks.
	seen := map[string]bool{}
	for !seen["blind-a"] || !seen["blind-b"] {
		d := reader.expect(topic, "presence_diff")
		for _, key := range []string{"blind-a", "blind-b"} {
			if len(metasOf(t, d.Payload["joins"], key)) == 1 {
				seen[key] = true
			}
		}
	}
}

// A refreshed token that loses the presence read permission closes the
// channel, as one that loses the broadcast read permission does
// (Supabase's check_read_permissions_revoked).
func TestPrivatePresenceReadRevokedByARefreshedToken(t *testing.T) {
	execSQL(t, presencePoliciesSQL)
	s := pgresttest.StartWith(t, directives(), pgresttest.Options{})
	const topic = "realtime:presence-auth-2"
	c := dial(t, s, userToken(t, "p-reader"), "2.0.0")
	ref := c.join(topic, config(false, false, "", true, true))
	c.expect(topic, "presence_state")
	c.send(ref, topic, "access_token", map[string]any{"access_token": userToken(t, "p-blind")})
	sys := c.expect(topic, "system")
	if sys.Payload["status"] != "error" || sys.Payload["message"] != "You no longer have permission to read from this Channel topic: presence-auth-2" {
		t.Errorf("got %v", sys.Payload)
	}
	c.expect(topic, "phx_close")
}
