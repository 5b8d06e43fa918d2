package realtime

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgrest/caddy-pgrest/executor"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// Private channels are authorized as Supabase's Realtime Authorization
// does it (lib/realtime/tenants/authorization.ex): in a transaction that
// is rolled back (on a connection of the REST API's pool, which goes back
// with the executor's session reset: executor.InRolledBackTx), as the
// channel's role with its claims and realtime.topic set, a join may read
// when the role's SELECT policies on realtime.messages let it see a probe
// row of the topic (extension broadcast, or presence), and a send may go
// when its INSERT policies let it insert one.
var (
	sqlProbe = sqltext.Const("select realtime.authorization_probe($1, 'broadcast'), " +
		"realtime.authorization_probe($1, 'presence')")
	sqlAsRole = sqltext.Const("select set_config('role', $1, true), set_config('realtime.topic', $2, true), " +
		"set_config('request.jwt.claims', $3, true), " +
		"set_config('request.jwt.claim.sub', coalesce($3::json->>'sub', ''), true), " +
		"set_config('request.jwt.claim.role', $1, true)")
	sqlSeeProbe = sqltext.Const("select " +
		"exists (select from realtime.messages where id = $1::uuid), " +
		"exists (select from realtime.messages where id = $2::uuid)")
	sqlInsertProbe = sqltext.Const("insert into realtime.messages (topic, extension) values ($1, $2)")
)

// readPolicies are a join's read permissions.
type readPolicies struct{ broadcast, presence bool }

// authorizeRead checks what the role may read on topic; presence only
// counts when the channel enables presence, as Supabase checks it only
// then.
func (srv *Server) authorizeRead(ctx context.Context, topic string, id identity, presence bool) (readPolicies, error) {
	var out readPolicies
	err := executor.InRolledBackTx(ctx, srv.cfg.Pool, func(tx pgx.Tx) error {
		var broadcastID, presenceID string
		if err := tx.QueryRow(ctx, sqlProbe.String(), topic).Scan(&broadcastID, &presenceID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, sqlAsRole.String(), id.Role, topic, claimsOf(id.Identity)); err != nil {
			return err
		}
		return tx.QueryRow(ctx, sqlSeeProbe.String(), broadcastID, presenceID).Scan(&out.broadcast, &out.presence)
	})
	if !presence {
		out.presence = false
	}
	return out, err
}

// authorizeWrite checks whether the role may send on topic's extension.
func (srv *Server) authorizeWrite(ctx context.Context, topic, extension string, id identity) (bool, error) {
	ok := false
	err := executor.InRolledBackTx(ctx, srv.cfg.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqlAsRole.String(), id.Role, topic, claimsOf(id.Identity)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, sqlInsertProbe.String(), topic, extension)
		var pgErr *pgconn.PgError
		switch {
		case err == nil:
			ok = true
		case errors.As(err, &pgErr) && pgErr.Code == "42501":
			// insufficient_privilege: no grant, or a row-level security
			// policy refused the row.
		default:
			return err
		}
		return nil
	})
	return ok, err
}
