package schemacache

import "github.com/jackc/pgx/v5"

// MediaHandler is a database object that renders a media type, as
// PostgREST's media type handlers do: an aggregate whose result type is a
// domain named like a media type ("text/html", "application/geo+json",
// "*/*") renders a relation's rows; a function returning such a domain
// renders its own result.
type MediaHandler struct {
	// Function is the aggregate or, for a function's own result, the
	// function itself.
	Function QualifiedName
	// Aggregate is true for an aggregate over rows, false for a function
	// whose result is already of the media type.
	Aggregate bool
	// Target is the relation whose row type the aggregate takes, or the
	// function a scalar handler belongs to; zero for an aggregate over
	// anyelement, which serves every relation.
	Target QualifiedName
	// MediaType is the domain's name, lower-cased ("*/*" for any).
	MediaType string
	// Binary is true when the domain is over bytea: the body is its bytes.
	Binary bool
}

// ContentType is the Content-Type a handler's response carries, as
// PostgREST writes it: "*/*" answers application/octet-stream, and the
// media types PostgREST knows take a charset; others are sent as named.
func (h *MediaHandler) ContentType() string {
	switch h.MediaType {
	case "*/*":
		return "application/octet-stream"
	case "application/octet-stream":
		return h.MediaType
	case "application/json", "application/geo+json", "text/csv", "text/plain", "text/xml":
		return h.MediaType + "; charset=utf-8"
	}
	return h.MediaType
}

// MediaHandlerKey finds a handler: the relation (or function) it serves,
// zero for any, and the media type.
type MediaHandlerKey struct {
	Target    QualifiedName
	MediaType string
}

// MediaHandler returns the handler of mediaType for target (a zero
// target: the handlers of every relation).
func (c *Cache) MediaHandler(target QualifiedName, mediaType string) (*MediaHandler, bool) {
	h, ok := c.mediaHandlers[MediaHandlerKey{Target: target, MediaType: mediaType}]
	return h, ok
}

// HasMediaHandler says whether a handler of mediaType serves any relation
// or function.
func (c *Cache) HasMediaHandler(mediaType string) bool {
	for k := range c.mediaHandlers {
		if k.MediaType == mediaType {
			return true
		}
	}
	return false
}

// indexMediaHandlers keys the catalog's handlers; of two for the same key
// (overloads of one function, say) the first in the catalog's order wins.
func indexMediaHandlers(hs []*MediaHandler) map[MediaHandlerKey]*MediaHandler {
	m := make(map[MediaHandlerKey]*MediaHandler, len(hs))
	for _, h := range hs {
		k := MediaHandlerKey{Target: h.Target, MediaType: h.MediaType}
		if _, dup := m[k]; !dup {
			m[k] = h
		}
	}
	return m
}

// mediaHandlersSQL lists the handlers of the exposed schemas: aggregates of
// one argument, a relation's row type or anyelement, and functions (not
// SETOF) whose result type is a domain named like a media type (RFC 6838's
// type/subtype, or */*). Domain names are compared lower-cased, as media
// types are.
const mediaHandlersSQL = `
with media_types as (
  select t.oid, pg_catalog.lower(t.typname) as media_type, b.typname = 'bytea' as is_binary
  from pg_catalog.pg_type t
  join pg_catalog.pg_type b on b.oid = t.typbasetype
  where t.typtype = 'd'
    and (t.typname operator(pg_catalog.~) '^[A-Za-z0-9.-]+/[A-Za-z0-9.+-]+$' or t.typname = '*/*')
)
select pn.nspname, p.proname, true,
       coalesce(rn.nspname, ''), coalesce(r.relname, ''), mt.media_type, mt.is_binary
from media_types mt
join pg_catalog.pg_proc p on p.prorettype = mt.oid
join pg_catalog.pg_aggregate a on a.aggfnoid = p.oid
join pg_catalog.pg_namespace pn on pn.oid = p.pronamespace
join pg_catalog.pg_type arg on arg.oid = p.proargtypes[0]
left join pg_catalog.pg_class r on r.oid = arg.typrelid and r.relkind in ('r', 'v', 'm', 'f', 'p')
left join pg_catalog.pg_namespace rn on rn.oid = r.relnamespace
where pn.nspname = any($1) and p.pronargs = 1
  and (r.oid is not null or arg.oid = 'pg_catalog.anyelement'::pg_catalog.regtype)
union all
select pn.nspname, p.proname, false, pn.nspname, p.proname, mt.media_type, mt.is_binary
from media_types mt
join pg_catalog.pg_proc p on p.prorettype = mt.oid
join pg_catalog.pg_namespace pn on pn.oid = p.pronamespace
where pn.nspname = any($1) and p.prokind = 'f' and not p.proretset
order by 1, 2, 4, 5`

// postgisSchemaSQL finds the schema PostGIS is installed in, if it is.
const postgisSchemaSQL = `
select n.nspname from pg_catalog.pg_extension e
join pg_catalog.pg_namespace n on n.oid = e.extnamespace
where e.extname = 'postgis'`

// readMediaHandlers reads the media type handlers.
func (l *loader) readMediaHandlers(rows pgx.Rows) error {
	for rows.Next() {
		h := &MediaHandler{}
		if err := rows.Scan(&h.Function.Schema, &h.Function.Name, &h.Aggregate,
			&h.Target.Schema, &h.Target.Name, &h.MediaType, &h.Binary); err != nil {
			return err
		}
		l.cat.MediaHandlers = append(l.cat.MediaHandlers, h)
	}
	return rows.Err()
}

// readPostGISSchema reads where PostGIS is, which the builtin
// application/geo+json handler calls.
func (l *loader) readPostGISSchema(rows pgx.Rows) error {
	for rows.Next() {
		if err := rows.Scan(&l.cat.PostGISSchema); err != nil {
			return err
		}
	}
	return rows.Err()
}
