package realtime

import (
	"context"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// listenerPrefix begins the application_name of every node's listening
// connection, which goes on with the node's name: a node that starts
// counts the other nodes' listeners by it.
const listenerPrefix = "pgrest_realtime "

// listenerName is the application_name of node's listening connection.
// PostgreSQL keeps 63 bytes of it; a name cut there ends at a whole
// character. Two nodes whose names share their first 47 bytes count as
// one, so a node that starts waits for one of them only.
func listenerName(node string) string {
	name := listenerPrefix + node
	if len(name) <= maxApplicationName {
		return name
	}
	name = name[:maxApplicationName]
	for !utf8.ValidString(name) {
		name = name[:len(name)-1]
	}
	return name
}

// maxApplicationName is how many bytes of application_name PostgreSQL
// keeps (NAMEDATALEN - 1).
const maxApplicationName = 63

// peersWait bounds how long a node that just started holds its first
// presence joins for the other nodes' presences (a node of an older
// pgrest never says it has reported).
const peersWait = 5 * time.Second

// sqlOtherListeners counts the other nodes listening on this database:
// $1 is the prefix, $2 this node's listener name. An instance of this
// node itself is not counted: on a configuration reload the new instance
// starts while the old one still listens, and the old one, which hears
// its own node's hello as its own, would never report (its clients are
// disconnected by the reload anyway).
var sqlOtherListeners = sqltext.Const(`select count(distinct application_name) from pg_stat_activity
  where pg_catalog.starts_with(application_name, $1) and application_name <> $2 and datname = pg_catalog.current_database()`)

// peers is what a node that starts waits for before its first presence
// joins: every node already listening reports its presences when it
// hears the hello, then says "reported" (kind r, naming the asker), so
// that a client joining a node that started after others' clients
// tracked gets the full presence_state, as Supabase's does.
type peers struct {
	mu       sync.Mutex
	expected int
	reported map[string]bool
	once     sync.Once
	ready    chan struct{}
}

func newPeers() *peers {
	return &peers{reported: map[string]bool{}, ready: make(chan struct{})}
}

func (p *peers) markReady() { p.once.Do(func() { close(p.ready) }) }

// expect counts the nodes listening on conn's database, which the hello
// about to be sent asks; the wait ends when they have all reported, or
// after peersWait.
func (p *peers) expect(ctx context.Context, conn *pgx.Conn, node string) {
	var n int
	if err := conn.QueryRow(ctx, sqlOtherListeners.String(), listenerPrefix, listenerName(node)).Scan(&n); err != nil {
		n = 0
	}
	p.mu.Lock()
	p.expected = n
	done := len(p.reported) >= n
	p.mu.Unlock()
	if done {
		p.markReady()
		return
	}
	time.AfterFunc(peersWait, p.markReady)
}

// reportedBy notes a node's "reported".
func (p *peers) reportedBy(node string) {
	p.mu.Lock()
	p.reported[node] = true
	done := p.expected > 0 && len(p.reported) >= p.expected
	p.mu.Unlock()
	if done {
		p.markReady()
	}
}

// wait returns once the node has the other nodes' presences, or ctx ends.
func (p *peers) wait(ctx context.Context) {
	select {
	case <-p.ready:
	case <-ctx.Done():
	}
}
