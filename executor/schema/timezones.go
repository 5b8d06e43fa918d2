package schema

import "context"

// timezonesSQL lists the time zone names Prefer: timezone accepts, as
// PostgREST reads them into its schema cache.
const timezonesSQL = `select name from pg_catalog.pg_timezone_names`

func (l *loader) loadTimezones(ctx context.Context) error {
	rows, err := l.q.Query(ctx, timezonesSQL)
	if err != nil {
		return err
	}
	defer rows.Close()
	l.cat.Timezones = map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		l.cat.Timezones[name] = true
	}
	return rows.Err()
}

// KnownTimezone says whether name is one of pg_timezone_names, compared
// exactly, as PostgREST compares it.
func (c *Cache) KnownTimezone(name string) bool { return c.timezones[name] }
