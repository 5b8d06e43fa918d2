package realtimesocket

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// startNodeProcess starts a realtime node with dirs in a Caddy process
// of its own (this test binary run as Caddy), which starts while the
// test's other node runs, and returns once it accepts a socket. The
// process is killed when the test ends.
func startNodeProcess(t *testing.T, dirs map[string]string) *pgresttest.Server {
	t.Helper()
	port, err := pgresttest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(config, []byte(pgresttest.Caddyfile(port, dirs, pgresttest.Options{LogLevel: "ERROR"})), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "run", "--config", config, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), runAsCaddy+"=1",
		"XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	s := &pgresttest.Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port)}
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, _, err := websocket.Dial(ctx, wsURL(s, "vsn=2.0.0"), nil)
		cancel()
		if err == nil {
			_ = conn.CloseNow()
			return s
		}
		if attempt == 600 {
			t.Fatalf("the node in its own process takes no socket: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestPresenceOnANodeThatStartsLater: a client joining a node that
// started after another node's clients tracked their presence gets them
// all in its presence_state, as on Supabase (its first join does not
// outrun the other nodes' report).
func TestPresenceOnANodeThatStartsLater(t *testing.T) {
	s1 := pgresttest.StartWith(t, directives("realtime_node_name early"), pgresttest.Options{})
	const topic = "realtime:room-late-node"
	a := dial(t, s1, "", "2.0.0")
	aRef := a.join(topic, config(false, false, "alice", true, false))
	a.expect(topic, "presence_state")
	a.track(aRef, topic, map[string]any{"on": "early"})

	s2 := startNodeProcess(t, directives("realtime_node_name late"))
	c := dial(t, s2, "", "2.0.0")
	c.join(topic, config(false, false, "carol", true, false))
	st := c.expect(topic, "presence_state")
	if ms := metasOf(t, st.Payload, "alice"); len(ms) != 1 || ms[0]["on"] != "early" {
		t.Errorf("presence_state on the later node: %v, want alice's presence", st.Payload)
	}
}

// TestTrackOnANodeThatStartsLater: a client that joined a node that just
// started without presence and tracks at once gets the other node's
// presences in the presence_state its track brings, as a join with
// presence does.
func TestTrackOnANodeThatStartsLater(t *testing.T) {
	s1 := pgresttest.StartWith(t, directives("realtime_node_name early2"), pgresttest.Options{})
	const topic = "realtime:room-late-track"
	a := dial(t, s1, "", "2.0.0")
	aRef := a.join(topic, config(false, false, "alice", true, false))
	a.expect(topic, "presence_state")
	a.track(aRef, topic, map[string]any{"on": "early"})

	s2 := startNodeProcess(t, directives("realtime_node_name late2"))
	c := dial(t, s2, "", "2.0.0")
	cRef := c.join(topic, config(false, false, "carol", false, false))
	c.track(cRef, topic, map[string]any{"on": "late"})
	st := c.expect(topic, "presence_state")
	if ms := metasOf(t, st.Payload, "alice"); len(ms) != 1 || ms[0]["on"] != "early" {
		t.Errorf("presence_state after a track on the later node: %v, want alice's presence", st.Payload)
	}
}
