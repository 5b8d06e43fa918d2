package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The delivery runs measure postgres_changes end to end, as a client sees
// them: clients WebSocket sockets to Caddy+pgrest, each subscribed to
// INSERTs of one table as supabase-js subscribes, while 4 connections
// insert n single-row transactions. Changes per second are n over the
// time from the first insert to the last change received by every
// client; the latency of a change is its receipt at the client less its
// commit_timestamp (PostgreSQL's commit time, same machine, same clock).
// tests/bench/realtime measures the same feed up to each subscription's
// queue, beside the stream decoded alone.

const deliveryFixture = `
do $$ begin
  if not exists (select from pg_roles where rolname = 'authenticator') then
    create role authenticator login replication noinherit password 'secret';
  end if;
  if not exists (select from pg_roles where rolname = 'web_anon') then create role web_anon nologin; end if;
end $$;
grant web_anon to authenticator;
create schema api;
grant usage on schema api to web_anon;
create table api.feed (id int primary key, body text);
grant select on api.feed to web_anon;
create publication bench_delivery for table api.feed;
`

const deliveryWriters = 4

// deliveryResult is one run's figures.
type deliveryResult struct {
	clients       int
	changesPerSec float64
	p50, p99      time.Duration
}

// measureDelivery runs one delivery run per count of clients, each on a
// database and a Caddy of its own.
func measureDelivery(ctx context.Context, counts []int, n int) ([]deliveryResult, error) {
	cluster, err := pgtest.StartWith(pgtest.Options{LogicalReplication: true})
	if err != nil {
		return nil, err
	}
	defer cluster.Stop()
	var out []deliveryResult
	for i, clients := range counts {
		super, err := cluster.NewDatabase(ctx, "bench_delivery_"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		if err := pgtest.ExecSQL(ctx, super, deliveryFixture); err != nil {
			return nil, err
		}
		auth := pgtest.DSNFor(super, "authenticator", "secret")
		r, err := deliveryRun(ctx, auth, super, clients, n, i)
		if err != nil {
			return nil, fmt.Errorf("%d clients: %w", clients, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func deliveryRun(ctx context.Context, auth, super string, clients, n, run int) (deliveryResult, error) {
	caddy, err := startCaddy(ctx, map[string]string{
		"db_uri":               pgresttest.Quote(auth),
		"db_schemas":           "api",
		"db_anon_role":         "web_anon",
		"realtime_enabled":     "true",
		"realtime_publication": "bench_delivery",
		"realtime_node_name":   "delivery" + strconv.Itoa(run),
		// Room for every change of the run in each socket's queue:
		// the bench's clients, on the same two cores, may read slower
		// than pgrest writes, and the run measures the rate, not the
		// slow-consumer cut (tests/realtimesocket tests that).
		"realtime_queue_size": strconv.Itoa(n + 64),
	}, "/feed?limit=1")
	if err != nil {
		return deliveryResult{}, err
	}
	defer caddy.stop()
	url := "ws://127.0.0.1:" + strconv.Itoa(caddy.port) + "/realtime/v1/websocket?vsn=2.0.0"
	conns := make([]*websocket.Conn, 0, clients)
	defer func() { closeAll(conns) }()
	for i := range clients {
		c, err := subscribeFeed(ctx, url)
		if err != nil {
			return deliveryResult{}, fmt.Errorf("client %d: %w", i, err)
		}
		conns = append(conns, c)
	}

	// The throwaway cluster runs with synchronous_commit off, where a
	// commit's WAL reaches the walsender only at the WAL writer's next
	// round (wal_writer_delay, 200ms): the writers commit synchronously,
	// as the realtime bench's do, so that latency and rate are the
	// feed's and the socket's, not that delay's (fsync is off).
	poolCfg, err := pgxpool.ParseConfig(super)
	if err != nil {
		return deliveryResult{}, err
	}
	poolCfg.ConnConfig.RuntimeParams["synchronous_commit"] = "on"
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		return deliveryResult{}, err
	}
	defer pool.Close()
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		latencies = make([]time.Duration, 0, n*clients)
		last      time.Time
		errs      = make(chan error, clients+deliveryWriters)
	)
	rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own, end, err := receiveChanges(rctx, c, n)
			if err != nil {
				errs <- err
				cancel()
				return
			}
			mu.Lock()
			latencies = append(latencies, own...)
			if end.After(last) {
				last = end
			}
			mu.Unlock()
		}()
	}
	start := time.Now()
	var writers sync.WaitGroup
	for w := range deliveryWriters {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for id := w; id < n; id += deliveryWriters {
				if _, err := pool.Exec(rctx, "insert into api.feed values ($1, 'change')", id); err != nil {
					errs <- err
					cancel()
					return
				}
			}
		}()
	}
	writers.Wait()
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return deliveryResult{}, err
	}
	slices.Sort(latencies)
	at := func(q float64) time.Duration { return latencies[min(len(latencies)-1, int(q*float64(len(latencies))))] }
	return deliveryResult{clients: clients, changesPerSec: float64(n) / last.Sub(start).Seconds(),
		p50: at(0.50), p99: at(0.99)}, nil
}

// subscribeFeed opens a socket that joins a channel with postgres_changes
// on INSERTs of api.feed, as supabase-js joins, and returns once pgrest
// says the subscription is live.
func subscribeFeed(ctx context.Context, url string) (*websocket.Conn, error) {
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(1 << 20)
	join, _ := json.Marshal([]any{"1", "1", "realtime:feed", "phx_join", map[string]any{"config": map[string]any{
		"broadcast": map[string]bool{"self": false, "ack": false}, "presence": map[string]any{"key": "", "enabled": false},
		"postgres_changes": []any{map[string]string{"event": "INSERT", "schema": "api", "table": "feed"}}, "private": false}}})
	if err := c.Write(ctx, websocket.MessageText, join); err != nil {
		_ = c.CloseNow()
		return nil, err
	}
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			_ = c.CloseNow()
			return nil, err
		}
		var f []json.RawMessage
		if json.Unmarshal(data, &f) != nil || len(f) != 5 {
			continue
		}
		var event string
		_ = json.Unmarshal(f[3], &event)
		var p struct {
			Status, Extension string
			Response          json.RawMessage
		}
		_ = json.Unmarshal(f[4], &p)
		switch {
		case event == "phx_reply" && p.Status != "ok":
			_ = c.CloseNow()
			return nil, fmt.Errorf("join refused: %s", data)
		case event == "system" && p.Extension == "postgres_changes":
			if p.Status != "ok" {
				_ = c.CloseNow()
				return nil, fmt.Errorf("subscription refused: %s", data)
			}
			return c, nil
		}
	}
}

// receiveChanges reads n postgres_changes from c and returns each one's
// latency from its commit and when the last one came.
func receiveChanges(ctx context.Context, c *websocket.Conn, n int) ([]time.Duration, time.Time, error) {
	out := make([]time.Duration, 0, n)
	var at time.Time
	for len(out) < n {
		_, data, err := c.Read(ctx)
		if err != nil {
			return nil, at, fmt.Errorf("after %d changes: %w", len(out), err)
		}
		at = time.Now()
		var f []json.RawMessage
		if json.Unmarshal(data, &f) != nil || len(f) != 5 {
			continue
		}
		var event string
		if json.Unmarshal(f[3], &event) != nil || event != "postgres_changes" {
			continue
		}
		var p struct {
			Data struct {
				CommitTimestamp string `json:"commit_timestamp"`
			} `json:"data"`
		}
		if err := json.Unmarshal(f[4], &p); err != nil {
			return nil, at, err
		}
		committed, err := time.Parse(time.RFC3339Nano, p.Data.CommitTimestamp)
		if err != nil {
			return nil, at, fmt.Errorf("commit_timestamp %q: %w", p.Data.CommitTimestamp, err)
		}
		out = append(out, at.Sub(committed))
	}
	return out, at, nil
}
