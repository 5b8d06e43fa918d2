package realtime

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// listenerName is the application_name of every node's listening
// connection: a node that starts counts the others' by it.
const listenerName = "pgrest_realtime"

// peersWait bounds how long a node that just started holds its first
// presence joins for the other nodes' presences (a node of an older
// pgrest never says it has reported).
const peersWait = 5 * time.Second

// sqlOtherListeners counts the other nodes listening on this database.
var sqlOtherListeners = sqltext.Const(`select count(*) from pg_stat_activity
  where application_name = $1 and datname = current_database() and pid <> pg_backend_pid()`)

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
func (p *peers) expect(ctx context.Context, conn *pgx.Conn) {
	var n int
	if err := conn.QueryRow(ctx, sqlOtherListeners.String(), listenerName).Scan(&n); err != nil {
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
