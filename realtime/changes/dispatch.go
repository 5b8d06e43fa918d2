package changes

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"
)

// maxBatch is how many queued transactions one round of authorization
// covers: the queries of a round serve all of their changes, so a busy
// table costs a few queries per round rather than per change. Rounds of
// 512 were measured too: under row-level security with 1,000 identities
// they delivered at most a third more (each identity's query checks
// every row of the round, so its cost grows with the round), and with
// 1,000 subscriptions without it about a quarter less (a round's
// matches, changes × subscriptions, became garbage to collect).
const maxBatch = 64

// dispatchLoop authorizes and delivers the reader's transactions, in
// commit order, and records how far it got for the reader to confirm.
func (f *Feed) dispatchLoop(ctx context.Context) {
	defer f.done.Done()
	for t := range f.txns {
		batch := []*txn{t}
	drain:
		for len(batch) < maxBatch {
			select {
			case t, ok := <-f.txns:
				if !ok {
					break drain
				}
				batch = append(batch, t)
			default:
				break drain
			}
		}
		f.dispatch(ctx, batch)
		last := batch[len(batch)-1]
		f.delivered.Store(uint64(last.endLSN))
		f.deliveredCommit.Store(uint64(last.commitLSN))
	}
}

// pending is one change with the subscriptions whose specs match it.
type pending struct {
	c         *change
	pos       Position
	committed time.Time
	matches   []match
}

type match struct {
	sub *Subscription
	who Identity
	key string // who.key(), made once
	ids []uint32
}

// dispatch records a batch in the replay window and delivers it to the
// subscriptions registered at that moment (one that registers later
// gets it from the window, see SubscribeFrom), then tells them they
// have been handed everything up to its end.
func (f *Feed) dispatch(ctx context.Context, batch []*txn) {
	f.mu.Lock()
	now := time.Now()
	for _, t := range batch {
		f.replay.add(t, now)
	}
	subs := make([]*Subscription, 0, len(f.subs))
	for s := range f.subs {
		subs = append(subs, s)
	}
	f.mu.Unlock()
	if len(subs) == 0 {
		return
	}
	// Each subscription gets the round's deliveries in one step: one
	// lock and one wake-up of its goroutine per round, not per change.
	perSub := make(map[*Subscription][]Delivery, len(subs))
	f.deliverTo(ctx, batch, subs, func(s *Subscription, d Delivery) { perSub[s] = append(perSub[s], d) })
	for s, list := range perSub {
		s.enqueue(list)
	}
	end := Position{LSN: uint64(batch[len(batch)-1].commitLSN), Seq: wholeTxn}
	for _, s := range subs {
		s.advance(end)
	}
}

// deliverTo authorizes the changes of txns for subs and puts each with
// its subscription: match specs in Go, then per table one
// column-privileges query for all roles, and, for tables under
// row-level security, one visibility query per identity (role and
// claims) for all the batch's rows of that table it subscribes to. A
// subscription gets only changes after the position it resumed from.
func (f *Feed) deliverTo(ctx context.Context, txns []*txn, subs []*Subscription, put func(*Subscription, Delivery)) {
	whos := make([]Identity, len(subs))
	keys := make([]string, len(subs))
	for i, s := range subs {
		whos[i] = s.identity()
		keys[i] = whos[i].key()
	}
	var (
		all []pending
		// xids of the transactions with rows to check under row-level
		// security: their rows must be visible before they are checked.
		xids []uint32
	)
	for _, t := range txns {
		for i := range t.changes {
			p := pending{c: &t.changes[i], pos: Position{LSN: uint64(t.commitLSN), Seq: uint32(i)}, committed: t.committed}
			for j, s := range subs {
				if !p.pos.After(s.skip) {
					continue
				}
				var ids []uint32
				for k := range s.specs {
					if s.specs[k].matches(p.c) {
						ids = append(ids, s.specs[k].id)
					}
				}
				if ids != nil {
					p.matches = append(p.matches, match{sub: s, who: whos[j], key: keys[j], ids: ids})
				}
			}
			if p.matches != nil {
				all = append(all, p)
				if rel := p.c.rel; rel.rls && rel.visible != "" && p.c.kind != "DELETE" &&
					(len(xids) == 0 || xids[len(xids)-1] != t.xid) {
					xids = append(xids, t.xid)
				}
			}
		}
	}
	if len(all) == 0 {
		return
	}
	f.awaitSettled(ctx, xids)
	// Per table: who may read which columns, and who sees which rows.
	type tableAuth struct {
		readable map[string]map[string]bool
		visible  map[string]map[int]bool // identity key -> index in all
	}
	auth := map[*relation]*tableAuth{}
	for _, p := range all {
		if auth[p.c.rel] != nil {
			continue
		}
		rel := p.c.rel
		var roles []string
		byWho := map[string]Identity{}
		rows := map[string][]int{} // identity key -> indexes in all of rows to check
		for i, q := range all {
			if q.c.rel != rel {
				continue
			}
			for _, m := range q.matches {
				if !slices.Contains(roles, m.who.Role) {
					roles = append(roles, m.who.Role)
				}
				byWho[m.key] = m.who
				if q.c.kind != "DELETE" {
					if r := rows[m.key]; len(r) == 0 || r[len(r)-1] != i {
						rows[m.key] = append(r, i)
					}
				}
			}
		}
		a := &tableAuth{visible: map[string]map[int]bool{}}
		var err error
		err = f.retry(ctx, "reading column privileges", func() (err error) {
			a.readable, err = columnPrivileges(ctx, f.pool, rel, roles)
			return err
		})
		if err != nil {
			f.log.Error("realtime: reading column privileges; changes not delivered",
				zap.String("table", rel.schema+"."+rel.table), zap.Error(err))
		}
		if rel.rls && rel.visible != "" {
			f.checkVisibility(ctx, rel, all, byWho, rows, a.visible)
		}
		auth[rel] = a
	}
	for i, p := range all {
		rel := p.c.rel
		a := auth[rel]
		payloads := map[string]json.RawMessage{} // by role
		for _, m := range p.matches {
			readable := a.readable[m.who.Role]
			if len(readable) == 0 {
				continue // the role may read nothing of the table
			}
			var errs []string
			if p.c.kind != "DELETE" {
				switch {
				case len(rel.pkey) == 0:
					errs = []string{errNoPrimaryKey}
				case !allReadable(rel.pkey, readable):
					errs = []string{errUnauthorized}
				case rel.rls && !a.visible[m.key][i]:
					continue // row-level security hides the row from this identity
				}
			} else if !allReadable(rel.pkey, readable) {
				continue // a DELETE cannot be checked against the row; its key must at least be readable
			}
			data, ok := payloads[m.who.Role]
			if !ok {
				data = payload(p.c, p.committed, readable, f.cfg.MaxRecordBytes, errs)
				payloads[m.who.Role] = data
			}
			put(m.sub, Delivery{IDs: m.ids, Data: data, Pos: p.pos})
		}
	}
}

func allReadable(cols []string, readable map[string]bool) bool {
	for _, c := range cols {
		if !readable[c] {
			return false
		}
	}
	return true
}

// visibilityWorkers bounds the visibility queries of a round that run at
// once, each on a pool connection of its own: several identities are
// checked in parallel without taking the whole pool from the HTTP
// requests that share it.
const visibilityWorkers = 4

// checkVisibility runs the visibility query of rel once per identity,
// for the rows of the round that identity subscribes to, and records in
// visible which rows (indexes in all) each may see. An identity whose
// query fails sees none of them.
func (f *Feed) checkVisibility(ctx context.Context, rel *relation, all []pending,
	byWho map[string]Identity, rows map[string][]int, visible map[string]map[int]bool) {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		jobs = make(chan string)
	)
	for range min(visibilityWorkers, len(rows)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for key := range jobs {
				who, idx := byWho[key], rows[key]
				keys := make([]json.RawMessage, len(idx))
				for j, i := range idx {
					keys[j] = all[i].c.key
				}
				var seen map[int]bool
				err := f.retry(ctx, "checking row visibility", func() (err error) {
					seen, err = visibleRows(ctx, f.pool, &preparedVisibility, f.legacy, rel, who, keys)
					return err
				})
				if err != nil {
					f.log.Warn("realtime: checking row visibility; changes not delivered to this role",
						zap.String("table", rel.schema+"."+rel.table), zap.String("role", who.Role), zap.Error(err))
				}
				set := make(map[int]bool, len(seen))
				for j := range seen {
					set[idx[j]] = true
				}
				mu.Lock()
				visible[key] = set
				mu.Unlock()
			}
		}()
	}
	for key := range rows {
		jobs <- key
	}
	close(jobs)
	wg.Wait()
}
