package schemacache

import "github.com/jackc/pgx/v5"

// Representation is a data representation: an implicit cast between a
// domain and json or text, whose function pgrest calls itself to format a
// domain's values on output (domain → json) and to parse them from a
// request (json → domain for bodies, text → domain for query-string
// values). PostgreSQL ignores casts to or from a domain, so the function
// is called by name, never through a cast.
type Representation struct {
	// Source and Target are format_type() of the cast's types, as column
	// types render ("color", "json", "text").
	Source, Target string
	// Function is the cast function, which takes one argument.
	Function QualifiedName
}

// representationsSQL selects PostgREST's candidates for data
// representations: implicit casts made with a function the authenticator
// may execute, between a domain and json or text. Both types are rendered
// by format_type, as the columns query renders column types, so the two
// compare as text.
const representationsSQL = `
select format_type(c.castsource, null), format_type(c.casttarget, null), n.nspname, p.proname
from pg_catalog.pg_cast c
join pg_catalog.pg_type src on src.oid = c.castsource
join pg_catalog.pg_type dst on dst.oid = c.casttarget
join pg_catalog.pg_proc p on p.oid = c.castfunc
join pg_catalog.pg_namespace n on n.oid = p.pronamespace
where c.castcontext = 'i'
  and c.castmethod = 'f'
  and has_function_privilege(c.castfunc, 'execute')
  and ((src.typtype = 'd' and c.casttarget in ('json'::regtype, 'text'::regtype))
    or (dst.typtype = 'd' and c.castsource in ('json'::regtype, 'text'::regtype)))`

func (l *loader) readRepresentations(rows pgx.Rows) error {
	for rows.Next() {
		var r Representation
		if err := rows.Scan(&r.Source, &r.Target, &r.Function.Schema, &r.Function.Name); err != nil {
			return err
		}
		l.cat.Representations = append(l.cat.Representations, r)
	}
	return rows.Err()
}

// domainsSQL lists every domain with the type it is based on, so a domain
// over tsvector can be told from other types.
const domainsSQL = `
select format_type(t.oid, null), format_type(t.typbasetype, t.typtypmod)
from pg_catalog.pg_type t
where t.typtype = 'd'`

func (l *loader) readDomains(rows pgx.Rows) error {
	l.cat.Domains = map[string]string{}
	for rows.Next() {
		var name, base string
		if err := rows.Scan(&name, &base); err != nil {
			return err
		}
		l.cat.Domains[name] = base
	}
	return rows.Err()
}

// Representation returns the representation from type source to type
// target, as format_type renders them.
func (c *Cache) Representation(source, target string) (*Representation, bool) {
	r, ok := c.representations[[2]string{source, target}]
	return r, ok
}

// HasOutputRepresentation says whether any column of rel has a
// representation to json, which makes a star select list its columns.
func (c *Cache) HasOutputRepresentation(rel *Relation) bool {
	if len(c.representations) == 0 {
		return false
	}
	for _, col := range rel.Columns {
		if _, ok := c.Representation(col.Type, "json"); ok {
			return true
		}
	}
	return false
}

// BaseType follows a domain down to the type it is ultimately based on;
// any other type is its own base.
func (c *Cache) BaseType(typ string) string {
	// Domains cannot be based on themselves; the bound guards against a
	// catalog this reader misunderstands.
	for range 100 {
		base, ok := c.domains[typ]
		if !ok {
			return typ
		}
		typ = base
	}
	return typ
}

// indexRepresentations keys the catalog's representations by their types.
// PostgreSQL allows one cast per pair of types, so a pair has one.
func indexRepresentations(list []Representation) map[[2]string]*Representation {
	m := make(map[[2]string]*Representation, len(list))
	for i := range list {
		r := &list[i]
		m[[2]string{r.Source, r.Target}] = r
	}
	return m
}
