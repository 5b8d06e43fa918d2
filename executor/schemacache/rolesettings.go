package schemacache

import "github.com/jackc/pgx/v5"

// roleSettingsSQL reads the settings given to roles with ALTER ROLE ... SET
// (setdatabase 0) and ALTER ROLE ... IN DATABASE ... SET (this database),
// for the roles the authenticator may switch to. PostgreSQL applies them
// only at login, so a request that switches role with set_config would run
// without them; pgrest applies them in the request's transaction, as
// PostgREST does. The general settings come first, so that a role's
// setting for this database, read later, wins.
//
// Only settings a role may change with SET are kept (context 'user', or a
// custom setting with a dot in its name): the request's settings are
// applied after the switch to the role, where a superuser-only one would
// fail every request. The role, the search path and the transaction's
// characteristics stay pgrest's: changing them inside the transaction
// would either fail (transaction_isolation after the first query) or
// change which objects the request's SQL names.
const roleSettingsSQL = `
select r.rolname, split_part(c.setting, '=', 1), substr(c.setting, strpos(c.setting, '=') + 1)
from pg_catalog.pg_db_role_setting s
join pg_catalog.pg_roles r on r.oid = s.setrole
cross join lateral unnest(s.setconfig) with ordinality c(setting, n)
left join pg_catalog.pg_settings p on p.name = split_part(c.setting, '=', 1)
where s.setdatabase in (0, (select d.oid from pg_catalog.pg_database d where d.datname = current_database()))
  and pg_catalog.pg_has_role(s.setrole, 'MEMBER')
  and strpos(c.setting, '=') > 0
  and (p.context = 'user' or (p.name is null and strpos(split_part(c.setting, '=', 1), '.') > 0))
  and split_part(c.setting, '=', 1) not in ('role', 'search_path', 'default_transaction_isolation',
                                           'default_transaction_read_only', 'default_transaction_deferrable',
                                           'transaction_isolation', 'transaction_read_only', 'transaction_deferrable')
order by r.rolname, s.setdatabase <> 0, c.n`

// loadRoleSettings fills RoleSettings: for each role, its settings with
// the database-specific value of a name replacing the general one.
func (l *loader) readRoleSettings(rows pgx.Rows) error {
	l.cat.RoleSettings = map[string][]Setting{}
	for rows.Next() {
		var role string
		var s Setting
		if err := rows.Scan(&role, &s.Name, &s.Value); err != nil {
			return err
		}
		l.cat.RoleSettings[role] = setSetting(l.cat.RoleSettings[role], s)
	}
	return rows.Err()
}

// setSetting sets s in settings, replacing a setting of the same name.
func setSetting(settings []Setting, s Setting) []Setting {
	for i := range settings {
		if settings[i].Name == s.Name {
			settings[i].Value = s.Value
			return settings
		}
	}
	return append(settings, s)
}
