package security

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// forbidden are texts no response may hold: each can only get there by a
// payload reading what its role may not, or running SQL.
func forbidden() map[string]string {
	return map[string]string{
		secret:                     "the app.jwt_secret setting",
		"HIDDENCANARY-8b1f2c":      "a row of api.canary_hidden",
		"VISIBLECANARY-41d9e0":     "a row of api.canary_visible (no payload request reads it)",
		"COLSECRET-5d0c1e7a":       "the column api.items.secret_note",
		"TRIPPED-c0ffee":           "the result of private.trip()",
		"authenticator-password":   "the authenticator's password",
		"pgrest-tripwire-password": "the tripwire's password",
	}
}

// stateQuery sums up what no request may change: the canaries' rows, the
// tripwire's record, and the database's objects, privileges and settings
// (each as a digest, with its own label so a change says where).
const stateQuery = `
select concat_ws(E'\n',
  'canary_hidden ' || (select count(*) || ' ' || md5(string_agg(id || ':' || marker, ',' order by id)) from api.canary_hidden),
  'canary_visible ' || (select count(*) || ' ' || md5(string_agg(id || ':' || marker, ',' order by id)) from api.canary_visible),
  'trips ' || (select count(*) || ' ' || coalesce(string_agg(what, ' | '), '') from private.trips),
  'relations ' || (select count(*) || ' ' || md5(string_agg(c.oid::regclass::text || c.relkind::text || coalesce(c.relacl::text, ''), ',' order by c.oid::regclass::text))
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname not like 'pg\_%temp%'),
  'columns ' || (select count(*) || ' ' || md5(string_agg(a.attrelid::regclass::text || '.' || a.attname || coalesce(a.attacl::text, ''), ',' order by 1))
     from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
     where n.nspname in ('api', 'private') and a.attnum > 0),
  'functions ' || (select count(*) || ' ' || md5(string_agg(p.oid::regprocedure::text || coalesce(p.proacl::text, ''), ',' order by 1))
     from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname not in ('pg_catalog', 'information_schema')),
  'schemas ' || (select count(*) || ' ' || md5(string_agg(nspname || coalesce(nspacl::text, ''), ',' order by 1)) from pg_namespace),
  'roles ' || (select count(*) || ' ' || md5(string_agg(rolname || rolsuper::text || rolcanlogin::text, ',' order by 1)) from pg_roles),
  'memberships ' || (select count(*) from pg_auth_members),
  'settings ' || (select count(*) || ' ' || md5(string_agg(setdatabase::text || ' ' || setrole::text || ' ' || setconfig::text, ',' order by 1)) from pg_db_role_setting),
  'triggers ' || (select count(*) from pg_trigger where not tgisinternal),
  'policies ' || (select count(*) from pg_policy),
  'extensions ' || (select count(*) || ' ' || string_agg(extname, ',' order by 1) from pg_extension),
  'types ' || (select count(*) from pg_type t join pg_namespace n on n.oid = t.typnamespace
     where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')),
  'rules ' || (select count(*) from pg_rewrite r join pg_class c on c.oid = r.ev_class join pg_namespace n on n.oid = c.relnamespace
     where n.nspname in ('api', 'private')))`

// dbState reads stateQuery as the superuser.
func dbState(t testing.TB) string {
	t.Helper()
	ctx, conn := superConn(t)
	var s string
	if err := conn.QueryRow(ctx, stateQuery).Scan(&s); err != nil {
		t.Fatalf("reading the database's state: %v", err)
	}
	return s
}

// stateDiff is the lines of after that differ from before.
func stateDiff(before, after string) string {
	b := strings.Split(before, "\n")
	var out []string
	for i, line := range strings.Split(after, "\n") {
		if i >= len(b) || b[i] != line {
			was := ""
			if i < len(b) {
				was = b[i]
			}
			out = append(out, was+" -> "+line)
		}
	}
	return strings.Join(out, "; ")
}

// resetCanaries puts the canaries' rows back and forgets the trips.
func resetCanaries(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := pgresttest.SQL("resetting the canaries", "select private.reset_canaries()")(ctx, db.SuperDSN); err != nil {
		t.Fatal(err)
	}
}
