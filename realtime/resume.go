package realtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"go.uber.org/zap"
)

// A client whose socket drops (no phx_leave) rejoins its channels with
// the same topic and config, as realtime-js does by itself, to this node
// or another. When a channel with postgres_changes ends that way, the
// position after which its client has seen nothing is stored in
// PostgreSQL for the resume window (realtime.resume_points, through
// realtime.resume_save), under a key of the client's identity, the topic
// and the specs; a join with the same key within the window takes it
// (realtime.resume_take) and the change feed first sends what the
// client missed from its replay window, then the live changes, none
// twice. Positions are the same on every node (commit LSNs), so the
// rejoin may go to any node of the database.

// resumeSaveSQL stores a resume point for $4 milliseconds; of two for
// one key, the later position is kept.
const resumeSaveSQL = `select realtime.resume_save($1, $2::text::pg_lsn, $3::int8, $4::int8 * interval '1 millisecond')`

// resumeTakeSQL takes (and deletes) the resume point of a key, if one
// has not expired.
const resumeTakeSQL = `select (resume_lsn - '0/0'::pg_lsn)::int8, resume_seq from realtime.resume_take($1)`

// saveTimeout bounds storing the resume points of one socket.
const saveTimeout = 5 * time.Second

// resumable is a channel's change subscription as its socket dropped.
type resumable struct {
	key  string
	sub  ChangeSubscription
	sink *changeSink
}

// resumeKey is what a rejoin must match to resume a channel: the role,
// the token's subject (else all its claims), the topic, public or
// private, and the postgres_changes specs. "" when resuming is off or
// nothing tells the client apart (no token).
func (srv *Server) resumeKey(id identity, key hubKey, specs []ChangeSpec) string {
	if srv.cfg.ResumeWindow <= 0 || id.ClaimsJSON == "" || len(specs) == 0 {
		return ""
	}
	who := id.ClaimsJSON
	if sub, ok := id.Claims["sub"]; ok {
		b, _ := json.Marshal(sub)
		who = "sub:" + string(b)
	}
	b, _ := json.Marshal([]any{id.Role, who, key.topic, key.private, specs})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// remember stores the resume points of a dropped socket's channels once
// its writer has stopped (what it wrote by then is all it wrote).
func (srv *Server) remember(s *socket, rs []*resumable) {
	if len(rs) == 0 {
		return
	}
	done := make(chan struct{})
	srv.resumeMu.Lock()
	for _, r := range rs {
		srv.saving[r.key] = done
	}
	srv.resumeMu.Unlock()
	srv.saves.Add(1)
	go func() {
		defer srv.saves.Done()
		defer func() {
			srv.resumeMu.Lock()
			for _, r := range rs {
				if srv.saving[r.key] == done {
					delete(srv.saving, r.key)
				}
			}
			srv.resumeMu.Unlock()
			close(done)
		}()
		select {
		case <-s.writerDone:
		case <-time.After(writeTimeout + time.Second):
			return // no telling what was written: nothing stored
		}
		ctx, cancel := context.WithTimeout(context.Background(), saveTimeout)
		defer cancel()
		for _, r := range rs {
			written, wroteAll := r.sink.progress()
			pos := r.sub.ResumeAt(written, wroteAll)
			if pos.IsZero() {
				continue
			}
			_, err := srv.cfg.Pool.Exec(ctx, resumeSaveSQL, r.key, lsnText(pos.LSN), int64(pos.Seq),
				srv.cfg.ResumeWindow.Milliseconds())
			if err != nil {
				srv.resumeFailed("storing a resume point failed; a rejoin gets only new changes", err)
				return
			}
		}
	}()
}

// takeResume takes the resume point of key: zero when there is none.
// A save of this node under way for the key is waited for.
func (srv *Server) takeResume(ctx context.Context, key string) ChangePosition {
	if key == "" {
		return ChangePosition{}
	}
	srv.resumeMu.Lock()
	saving := srv.saving[key]
	srv.resumeMu.Unlock()
	if saving != nil {
		select {
		case <-saving:
		case <-ctx.Done():
			return ChangePosition{}
		}
	}
	rows, err := srv.cfg.Pool.Query(ctx, resumeTakeSQL, key)
	if err != nil {
		srv.resumeFailed("reading a resume point failed; the join gets only new changes", err)
		return ChangePosition{}
	}
	defer rows.Close()
	var pos ChangePosition
	for rows.Next() {
		var lsn, seq int64
		if err := rows.Scan(&lsn, &seq); err != nil {
			break
		}
		pos = ChangePosition{LSN: uint64(lsn), Seq: uint32(seq)}
	}
	if err := rows.Err(); err != nil {
		srv.resumeFailed("reading a resume point failed; the join gets only new changes", err)
		return ChangePosition{}
	}
	return pos
}

// resumeFailed logs a failure to store or read a resume point. A
// database without realtime.sql's resume functions (or without the
// grant) is said once, not at every join: resuming is then off.
func (srv *Server) resumeFailed(what string, err error) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "42883" || pgErr.Code == "3F000" || pgErr.Code == "42501") {
		srv.resumeMissing.Do(func() {
			srv.log.Warn("realtime: resuming changes after a dropped socket is off: install realtime/realtime.sql "+
				"and grant realtime.resume_save and realtime.resume_take to the authenticator", zap.Error(err))
		})
		return
	}
	srv.log.Warn("realtime: "+what, zap.Error(err))
}

// lsnText is an LSN as pg_lsn reads it.
func lsnText(lsn uint64) string { return fmt.Sprintf("%X/%X", lsn>>32, uint32(lsn)) }
