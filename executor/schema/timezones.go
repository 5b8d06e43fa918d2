package schema

import "github.com/jackc/pgx/v5"

// timezonesSQL lists the time zone names Prefer: timezone accepts, as
// PostgREST reads them into its schema cache.
const timezonesSQL = `select name from pg_catalog.pg_timezone_names`

func (l *loader) readTimezones(rows pgx.Rows) error {
	l.timezones = map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		l.timezones[name] = true
	}
	return rows.Err()
}

// KnownTimezone says whether name is one of pg_timezone_names, compared
// exactly, as PostgREST compares it.
func (c *Cache) KnownTimezone(name string) bool { return c.timezones[name] }
