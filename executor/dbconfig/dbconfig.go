// Package dbconfig reads pgrest's in-database configuration: the
// authenticator role's pgrst.* settings and those a db_pre_config
// function sets, as PostgREST reads them.
package dbconfig

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// dbConfigSQL reads the authenticator's pgrst.* settings, as PostgREST
// does: those of ALTER ROLE <authenticator> IN DATABASE <this one> SET
// first, then those of ALTER ROLE <authenticator> SET, then those the
// db_pre_config function set with set_config (the %s part, empty without
// one). The first value of each name wins. A setting of the database
// alone (ALTER DATABASE ... SET) is not read. The role's settings come
// from the catalog, not from current_setting: the session holds the
// values of when it logged in, not those of now.
const dbConfigSQL = `with role_setting as (
  select s.setdatabase as database, pg_catalog.unnest(s.setconfig) as setting
  from pg_catalog.pg_db_role_setting s
  where s.setrole = (select r.oid from pg_catalog.pg_roles r where r.rolname = current_user)
    and s.setdatabase in (0, (select d.oid from pg_catalog.pg_database d where d.datname = pg_catalog.current_database()))
),
kv_settings as (
  select database,
         pg_catalog.substr(setting, 1, pg_catalog.strpos(setting, '=') - 1) as k,
         pg_catalog.substr(setting, pg_catalog.strpos(setting, '=') + 1) as v
  from role_setting
  %s
)
select distinct on (key) pg_catalog.substr(k, 7) as key, v as value
from kv_settings
where k = any($1) and v is not null
order by key, database desc nulls last`

// blankDBConfigSQL sets every name the configuration is read from to
// empty for the transaction, before the db_pre_config function runs: a
// value the session had (one the role or the database gave it when it
// logged in, or one left in a session that a pooler shares) is then
// not read back as one the function set.
const blankDBConfigSQL = `select pg_catalog.set_config(x, '', true) from pg_catalog.unnest($1::text[]) x`

// dbPreConfigSQL adds the settings the db_pre_config function sets (the
// %s), read back in the same transaction. A name still empty is one the
// function did not set.
const dbPreConfigSQL = `union
  select null as database, x as k, nullif(pg_catalog.current_setting(x, true), '') as v
  from pg_catalog.unnest($1::text[]) x
  join %s() _ on true`

// Read reads the in-database configuration of the settings
// named (without the pgrst. prefix: those a running server can change,
// after PostgREST's list), calling preConfig (a function name,
// optionally schema-qualified; empty for none) first. It returns the
// values by name, without the pgrst. prefix.
//
// It reads on a connection of its own, made with pool's connection
// settings and closed afterwards, never on one of pool's: a request may
// leave anything in its connection's session (session-level pgrst.*
// values, a role, a search_path, temporary tables), and the function, or
// current_user, would read it there. Because a pooler in front of the
// database may still hand that connection a session that served requests,
// the names read back are also blanked before the function runs. It runs
// in a read-only transaction that is rolled back, so the function's
// set_config calls end with it.
func Read(ctx context.Context, pool *pgxpool.Pool, preConfig string, settings []string) (map[string]string, error) {
	names := make([]string, len(settings))
	for i, n := range settings {
		names[i] = "pgrst." + n
	}
	pre := sqltext.Const("")
	if preConfig != "" {
		pre = sqltext.Fmt(dbPreConfigSQL, functionName(preConfig))
	}
	query := sqltext.Fmt(dbConfigSQL, pre)

	conn, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, err
	}
	// Bounded by ctx: a close that cannot be sent still closes the socket,
	// and the server then ends the transaction.
	defer func() { _ = conn.Close(ctx) }()
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if preConfig != "" {
		if _, err := tx.Exec(ctx, sqltext.Const(blankDBConfigSQL).String(), names); err != nil {
			return nil, err
		}
	}
	rows, err := tx.Query(ctx, query.String(), names)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}

// functionName quotes a function name that may be schema-qualified (the
// part before the first dot is the schema), as db_pre_request's is.
func functionName(name string) sqltext.SQL {
	if schemaName, function, ok := strings.Cut(name, "."); ok {
		return sqltext.Qualified(schemaName, function)
	}
	return sqltext.Ident(name)
}
