package changes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"weak"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgrest/caddy-pgrest/executor"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// visibilityQuery asks, as the role and claims the transaction was
// switched to, which of several rows of a table the role may SELECT
// under row-level security. $1 is a JSON array of objects holding each
// row's primary key values as text; the answer is the 1-based positions
// of the visible ones. It reads the table by primary key, as Supabase's
// walrus does (realtime.build_prepared_statement_sql): a row is
// delivered when the role, with its claims, can read the row as it is
// now. jsonb_populate_record turns each key value into the column's
// type with the type's own input function. A table without a primary
// key has no query: Supabase answers "Error 400: Bad Request, no primary
// key" for it.
func visibilityQuery(r *relation) string {
	if len(r.pkey) == 0 {
		return ""
	}
	table := sqltext.Qualified(r.schema, r.table)
	conds := make([]sqltext.SQL, len(r.pkey))
	for i, k := range r.pkey {
		conds[i] = sqltext.Fmt("t.%s = k.%s", sqltext.Ident(k), sqltext.Ident(k))
	}
	return sqltext.Fmt(`select e.n::int8 from jsonb_array_elements($1::jsonb) with ordinality as e(v, n)
where exists (select 1 from %s t, jsonb_populate_record(null::%s, e.v) k where %s)`,
		table, table, sqltext.Join(conds, " and ")).String()
}

// privilegesQuery lists, for each role of $2, the columns of table $1 it
// may SELECT, in column order (has_column_privilege, as walrus). A role
// that no longer exists may read nothing rather than fail the query for
// every other role.
const privilegesQuery = `select r.role, coalesce(array_agg(a.attname::text order by a.attnum) filter (where a.attname is not null), '{}')
from unnest($2::text[]) as r(role)
left join pg_catalog.pg_attribute a on a.attrelid = $1::int8::oid and a.attnum > 0 and not a.attisdropped
  and case when exists (select 1 from pg_catalog.pg_roles where rolname = r.role)
      then pg_catalog.has_column_privilege(r.role, a.attrelid, a.attnum, 'SELECT') else false end
group by r.role`

// columnPrivileges returns role -> the set of columns of rel it may read.
func columnPrivileges(ctx context.Context, pool *pgxpool.Pool, rel *relation, roles []string) (map[string]map[string]bool, error) {
	rows, err := pool.Query(ctx, privilegesQuery, int64(rel.id), roles)
	if err != nil {
		return nil, err
	}
	out := make(map[string]map[string]bool, len(roles))
	var (
		role string
		cols []string
	)
	_, err = pgx.ForEachRow(rows, []any{&role, &cols}, func() error {
		set := make(map[string]bool, len(cols))
		for _, c := range cols {
			set[c] = true
		}
		out[role] = set
		return nil
	})
	return out, err
}

// visibleRows runs rel's visibility query for keys (one JSON object of
// primary key values per row) as who: the executor's own statement
// switches role and claims (set_config(..., true), so that policies see
// what they see for a request), then the query runs, both in one
// pipeline, which PostgreSQL runs as one implicit transaction: one round
// trip, and the settings end with it. It returns the indexes (0-based)
// of keys whose rows who may see.
//
// The query is prepared in that pipeline after the role switch, as who,
// the first time a connection runs it (preparedVisibility records which
// connections have it). Prepared ahead, as pgx prepares a batch, it would
// be parsed as the authenticator, which, as PostgREST's authenticator,
// need not be allowed to use the table's schema; parsed anew at each
// check, unnamed, it cost a fifth of the rate under row-level security
// with 100 and 1,000 users.
//
// The transaction commits, and the connection is the REST API's: what
// the table's policies, run as who, left at session level (a setting, SET
// ROLE, a temporary table, LISTEN, an advisory lock) would stay on it for
// the next request, so it goes back to the pool with the executor's
// session reset, or closed. Each of the identities a round checks at once
// (visibilityWorkers) takes and resets a connection of its own.
func visibleRows(ctx context.Context, pool *pgxpool.Pool, prepared *preparedSet, legacy bool, rel *relation, who Identity, keys []json.RawMessage) (map[int]bool, error) {
	settings, err := executor.IdentitySettings(who.Role, who.Claims, legacy)
	if err != nil {
		return nil, fmt.Errorf("claims: %w", err)
	}
	arg, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer executor.ReleaseReset(ctx, conn)
	pc := conn.Conn().PgConn()
	name := visibilityStatementName(who.Role, rel.visible)
	out, err := checkVisible(ctx, pc, prepared, name, settings.SQL.String(), settings.Args, rel.visible, arg)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "26000":
			// The statement is gone from the connection (something ran
			// DEALLOCATE): prepare it again, at once, so that no
			// change is dropped for it.
			prepared.forget(pc)
			out, err = checkVisible(ctx, pc, prepared, name, settings.SQL.String(), settings.Args, rel.visible, arg)
		case "42P05":
			// Prepared already, by what the record does not know of.
			prepared.add(pc, name)
			out, err = checkVisible(ctx, pc, prepared, name, settings.SQL.String(), settings.Args, rel.visible, arg)
		}
	}
	return out, err
}

// checkVisible sends visibleRows' pipeline on pc and reads it.
func checkVisible(ctx context.Context, pc *pgconn.PgConn, prepared *preparedSet, name, settingsSQL string, settingsArgs [][]byte, visibleSQL string, arg []byte) (map[int]bool, error) {
	prepare := !prepared.has(pc, name)
	p := pc.StartPipeline(ctx)
	p.SendQueryParams(settingsSQL, settingsArgs, nil, nil, nil)
	if prepare {
		p.SendPrepare(name, visibleSQL, nil)
	}
	p.SendQueryPrepared(name, [][]byte{arg}, nil, nil)
	if err := p.Sync(); err != nil {
		_ = p.Close()
		return nil, err
	}
	out, err := readVisible(p, func() {
		if prepare {
			prepared.add(pc, name)
		}
	})
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	return out, err
}

// readVisible reads visibleRows' pipeline: the settings, the statement's
// description when it was prepared (then calls madePrepared: the
// statement exists on the connection from then on, whatever fails
// after), the 1-based positions of the visible rows (int8, as text), and
// the Sync.
func readVisible(p *pgconn.Pipeline, madePrepared func()) (map[int]bool, error) {
	var (
		out  map[int]bool
		read int // results read: the settings, then the rows
	)
	for {
		res, err := p.GetResults()
		if err != nil {
			return nil, err
		}
		switch r := res.(type) {
		case *pgconn.StatementDescription:
			madePrepared()
		case *pgconn.ResultReader:
			read++
			if read == 2 {
				out = map[int]bool{}
				for r.NextRow() {
					n, err := strconv.ParseInt(string(r.Values()[0]), 10, 64)
					if err != nil {
						_, _ = r.Close()
						return nil, fmt.Errorf("realtime: visibility check: position %q: %w", r.Values()[0], err)
					}
					out[int(n)-1] = true
				}
			}
			if _, err := r.Close(); err != nil {
				return nil, err
			}
		case *pgconn.PipelineSync:
			if read != 2 {
				return nil, fmt.Errorf("realtime: visibility check: %d results before the Sync, want 2", read)
			}
			return out, nil
		default:
			return nil, fmt.Errorf("realtime: visibility check: unexpected %T in the pipeline", res)
		}
	}
}

// visibilityStatementName names a visibility query's prepared statement
// after the role it runs as and its text, as the executor names its
// statements: a plan is only ever reused by the role it was made for (see
// SECURITY.md), and a table whose key changed gets a statement of its own.
func visibilityStatementName(role, sql string) string {
	sum := sha256.Sum256([]byte(role + "\x00" + sql))
	return "pgrest_realtime_visible_" + hex.EncodeToString(sum[:8])
}

// preparedSet records which connections have which visibility
// statements prepared. It holds the connections weakly: one the pool has
// closed and let go is not kept alive by it, its entry goes the next
// time one is added, and a new connection never matches an old entry
// (weak pointers of different objects differ). A connection's own state
// is not read here: it may be in use by another goroutine. There is one,
// preparedVisibility, for every feed of the process: feeds of several
// nodes or sites can share one pool's connections.
var preparedVisibility preparedSet

type preparedSet struct {
	mu sync.Mutex
	on map[weak.Pointer[pgconn.PgConn]]map[string]bool
}

func (s *preparedSet) has(c *pgconn.PgConn, name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.on[weak.Make(c)][name]
}

func (s *preparedSet) forget(c *pgconn.PgConn) {
	s.mu.Lock()
	delete(s.on, weak.Make(c))
	s.mu.Unlock()
}

func (s *preparedSet) add(c *pgconn.PgConn, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on == nil {
		s.on = map[weak.Pointer[pgconn.PgConn]]map[string]bool{}
	}
	for other := range s.on {
		if other.Value() == nil {
			delete(s.on, other)
		}
	}
	key := weak.Make(c)
	if s.on[key] == nil {
		s.on[key] = map[string]bool{}
	}
	s.on[key][name] = true
}
