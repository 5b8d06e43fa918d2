package schemacache

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Querier is what Load needs of a connection; *pgx.Conn, pgx.Tx and
// *pgxpool.Pool all satisfy it.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Load reads the catalog for schemas and builds the cache. It runs as the
// authenticator and reads only pg_catalog, so it needs no privileges on
// the schemas. A dozen queries read everything, whatever the number of
// relations, sent together in one round trip (see runPipelined); on an
// idle connection they run in one read-only repeatable-read transaction,
// so that they see one snapshot of the catalog.
//
// q is a *pgx.Conn, a *pgxpool.Conn, a pgx.Tx, or a *pgxpool.Pool, of
// which Load takes a connection for the time of the load.
//
// When a role setting of pgrest's is not valid, Load returns a
// *RoleSettingError and the cache too, without any role's limits.
func Load(ctx context.Context, q Querier, schemas []string) (*Cache, error) {
	var conn *pgx.Conn
	switch c := q.(type) {
	case *pgx.Conn:
		conn = c
	case interface{ Conn() *pgx.Conn }: // *pgxpool.Conn, pgx.Tx
		conn = c.Conn()
	case interface {
		Acquire(context.Context) (*pgxpool.Conn, error)
	}:
		pc, err := c.Acquire(ctx)
		if err != nil {
			return nil, fmt.Errorf("acquiring a connection for the schema cache: %w", err)
		}
		defer pc.Release()
		conn = pc.Conn()
	default:
		return nil, fmt.Errorf("loading the schema cache through a %T, which gives no connection", q)
	}
	l := &loader{
		byName: map[QualifiedName]*Relation{},
		byOID:  map[uint32]*Relation{},
		cat:    &Catalog{Schemas: schemas},
	}
	if err := runPipelined(ctx, conn, schemas, l.queries()); err != nil {
		return nil, err
	}
	limits, session, err := readRoleLimits(l.cat.RoleSettings)
	l.cat.RoleSettings = session
	c := Build(l.cat)
	if err != nil {
		// The cache is built all the same, without any role's limits:
		// a reload keeps the limits of the cache in use (WithRoleLimitsOf)
		// and serves the rest of what it read.
		return c, err
	}
	c.limits = limits
	return c, nil
}

// queries are Load's queries in the order they are sent and read: each
// reader may use what the readers before it read.
func (l *loader) queries() []catalogQuery {
	return []catalogQuery{
		{"server version", serverVersionSQL, false, l.readServerVersion},
		{"relations", relationsSQL, true, l.readRelations},
		{"columns", columnsSQL, true, l.readColumns},
		{"view definitions", viewsSQL, true, l.readViews},
		{"keys", constraintsSQL, true, l.readConstraints},
		{"functions", functionsSQL, true, l.readFunctions},
		{"role settings", roleSettingsSQL, false, l.readRoleSettings},
		{"media type handlers", mediaHandlersSQL, true, l.readMediaHandlers},
		{"the PostGIS schema", postgisSchemaSQL, false, l.readPostGISSchema},
		{"data representations", representationsSQL, false, l.readRepresentations},
		{"domains", domainsSQL, false, l.readDomains},
	}
}

// loader carries what one Load has read so far.
type loader struct {
	cat    *Catalog
	byName map[QualifiedName]*Relation
	// byOID holds the exposed relations by pg_class oid.
	byOID map[uint32]*Relation
	// traced are the exposed views' columns traced to a base column;
	// relevant holds the oids whose keys matter: the exposed relations
	// and the base tables of exposed views.
	traced   []tracedColumn
	relevant map[uint32]bool
}

// tracedColumn is a view column that shows attnum of table unchanged.
type tracedColumn struct {
	view   QualifiedName
	column string
	table  uint32
	attnum int
}

const serverVersionSQL = `select current_setting('server_version_num')`

func (l *loader) readServerVersion(rows pgx.Rows) error {
	var version string
	for rows.Next() {
		if err := rows.Scan(&version); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	n, err := strconv.Atoi(version)
	if err != nil {
		return fmt.Errorf("parsing server_version_num %q: %w", version, err)
	}
	l.cat.ServerVersionNum = n
	return nil
}

// relationsSQL lists the exposed relations. pg_relation_is_updatable is
// asked once per view (tables take every write); it opens the view and
// reads its rules.
const relationsSQL = `
select c.oid, n.nspname, c.relname, c.relkind::text,
       coalesce(d.description, ''),
       (u.events & 8) = 8, (u.events & 4) = 4, (u.events & 16) = 16
from pg_class c
join pg_namespace n on n.oid = c.relnamespace
cross join lateral (select case when c.relkind in ('r', 'p') then 28
                                else pg_relation_is_updatable(c.oid, true) end as events) u
left join pg_description d on d.objoid = c.oid and d.classoid = 'pg_class'::regclass and d.objsubid = 0
where c.relkind in ('r', 'v', 'm', 'f', 'p')
  and n.nspname = any($1)
  and not c.relispartition`

func (l *loader) readRelations(rows pgx.Rows) error {
	l.relevant = map[uint32]bool{}
	for rows.Next() {
		r := &Relation{}
		var kind string
		if err := rows.Scan(&r.oid, &r.Schema, &r.Name, &kind, &r.Description, &r.Insertable, &r.Updatable, &r.Deletable); err != nil {
			return err
		}
		r.Kind = RelKind(kind[0])
		l.cat.Relations = append(l.cat.Relations, r)
		l.byName[QualifiedName{r.Schema, r.Name}] = r
		l.byOID[r.oid] = r
		l.relevant[r.oid] = true
	}
	return rows.Err()
}

// columnsSQL lists the columns of the exposed relations. It spells out
// what information_schema's _pg_char_max_length, _pg_truetypid and
// _pg_truetypmod compute rather than calling them: as SQL functions of
// whole rows they cost more than the rest of the query together.
// Defaults are deparsed without their relation (relid 0) unless they are
// a generated column's expression, the only kind that may refer to
// columns: deparsing with the relation opens it, and a first load on a
// connection would build the relation cache entry of every table.
const columnsSQL = `
select a.attrelid, a.attname, a.attnum,
       format_type(a.atttypid, a.atttypmod),
       not a.attnotnull,
       coalesce(def.expr, ''),
       ad.adbin is not null,
       coalesce(case when tt.typmod = -1 then null
                     when tt.typid in (1042, 1043) then tt.typmod - 4 -- char, varchar
                     when tt.typid in (1560, 1562) then tt.typmod -- bit, varbit
                end, 0),
       coalesce(en.labels, '{}'),
       coalesce(d.description, ''),
       -- What a missing value becomes on INSERT: the column's default,
       -- an identity's next value, or its domain's default; a generated
       -- column takes none (PostgREST's missing=default does the same).
       case when a.attgenerated = '' then
         coalesce(def.expr,
                  case when a.attidentity = 'd' then
                    (select format('nextval(%L::regclass)', pg_catalog.quote_ident(sn.nspname) || '.' || pg_catalog.quote_ident(s.relname))
                     from pg_depend dep
                     join pg_class s on s.oid = dep.objid and s.relkind = 'S'
                     join pg_namespace sn on sn.oid = s.relnamespace
                     where dep.classid = 'pg_class'::regclass and dep.refclassid = 'pg_class'::regclass
                       and dep.refobjid = c.oid and dep.refobjsubid = a.attnum and dep.deptype = 'i') end,
                  case when t.typbasetype <> 0 then pg_get_expr(t.typdefaultbin, 0) end)
       end
from pg_attribute a
join pg_class c on c.oid = a.attrelid
join pg_namespace n on n.oid = c.relnamespace
join pg_type t on t.oid = a.atttypid
cross join lateral (select case when t.typtype = 'd' then t.typbasetype else a.atttypid end as typid,
                           case when t.typtype = 'd' then t.typtypmod else a.atttypmod end as typmod) tt
left join pg_attrdef ad on ad.adrelid = a.attrelid and ad.adnum = a.attnum
left join lateral (select pg_get_expr(ad.adbin, case when a.attgenerated <> '' then ad.adrelid else 0 end) as expr) def on true
left join (select e.enumtypid, array_agg(e.enumlabel order by e.enumsortorder) as labels
           from pg_enum e
           group by e.enumtypid) en on en.enumtypid = coalesce(nullif(t.typbasetype, 0), t.oid)
left join pg_description d on d.objoid = c.oid and d.classoid = 'pg_class'::regclass and d.objsubid = a.attnum
where c.relkind in ('r', 'v', 'm', 'f', 'p')
  and n.nspname = any($1)
  and not c.relispartition
  and a.attnum > 0 and not a.attisdropped`

// readColumns gives each relation its columns, in attribute order (the
// query leaves the sorting here, where it costs less than a sort of wide
// rows on the server).
func (l *loader) readColumns(rows pgx.Rows) error {
	for rows.Next() {
		var rel uint32
		col := &Column{}
		var insertDefault *string
		if err := rows.Scan(&rel, &col.Name, &col.Position, &col.Type, &col.Nullable,
			&col.Default, &col.HasDefault, &col.MaxLength, &col.EnumValues, &col.Description, &insertDefault); err != nil {
			return err
		}
		if insertDefault != nil {
			col.InsertDefault = *insertDefault
		}
		if r, ok := l.byOID[rel]; ok {
			r.Columns = append(r.Columns, col)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range l.cat.Relations {
		slices.SortFunc(r.Columns, func(a, b *Column) int { return a.Position - b.Position })
	}
	return nil
}

// viewReadsSQL is what views read from: the relations their rewrite
// rules depend on, in pg_depend.
const viewReadsSQL = `
  select d.refobjid
  from views v
  join pg_rewrite r on r.ev_class = v.oid and r.rulename = '_RETURN'
  join pg_depend d on d.classid = 'pg_rewrite'::regclass and d.objid = r.oid
                  and d.refclassid = 'pg_class'::regclass`

// viewDependenciesSQL is the exposed views ($1) and every view they read
// from, in any schema, following the dependencies their rewrite rules
// record in pg_depend.
const viewDependenciesSQL = `
views(oid) as (
  select c.oid
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  where c.relkind in ('v', 'm') and n.nspname = any($1) and not c.relispartition
  union` + viewReadsSQL + `
  join pg_class c on c.oid = d.refobjid and c.relkind in ('v', 'm')
)`

// viewsSQL reads the stored query of the exposed views and of every view
// they read from.
const viewsSQL = `
with recursive ` + viewDependenciesSQL + `
select r.ev_class, r.ev_action::text
from views v
join pg_rewrite r on r.ev_class = v.oid and r.rulename = '_RETURN'`

// readViews traces every column of the exposed views that shows a table
// column unchanged to that column, through views over views, from the
// target lists PostgreSQL keeps for each view's query.
func (l *loader) readViews(rows pgx.Rows) error {
	// targets maps a view to its output columns by number.
	targets := map[uint32]map[int]targetEntry{}
	for rows.Next() {
		var oid uint32
		var action string
		if err := rows.Scan(&oid, &action); err != nil {
			return err
		}
		entries, err := viewTargets(action)
		if err != nil {
			// A rule action this reader does not follow costs that
			// view's relationships, not the whole cache.
			targets[oid] = map[int]targetEntry{}
			continue
		}
		byNumber := make(map[int]targetEntry, len(entries))
		for _, e := range entries {
			if !e.junk {
				byNumber[e.resno] = e
			}
		}
		targets[oid] = byNumber
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, v := range l.cat.Relations {
		if !v.IsView() {
			continue
		}
		names := make(map[int]string, len(v.Columns))
		for _, col := range v.Columns {
			names[col.Position] = col.Name
		}
		for resno, e := range targets[v.oid] {
			table, attnum, ok := traceColumn(targets, e.origTable, e.origColumn)
			if !ok || names[resno] == "" {
				continue
			}
			l.traced = append(l.traced, tracedColumn{QualifiedName{v.Schema, v.Name}, names[resno], table, attnum})
			l.relevant[table] = true
		}
	}
	return nil
}

// traceColumn follows a column through views until it reaches a relation
// that is not a view: the base table column the view column shows.
func traceColumn(targets map[uint32]map[int]targetEntry, rel uint32, attnum int) (uint32, int, bool) {
	// Views cannot be made to refer to themselves; the bound guards
	// against a catalog this reader misunderstands.
	for range 100 {
		if rel == 0 || attnum <= 0 {
			return 0, 0, false
		}
		entries, isView := targets[rel]
		if !isView {
			return rel, attnum, true
		}
		e, ok := entries[attnum]
		if !ok {
			return 0, 0, false
		}
		rel, attnum = e.origTable, e.origColumn
	}
	return 0, 0, false
}

// constraintsSQL reads the foreign keys from or to the candidates (the
// exposed relations, and every relation the exposed views or the views
// they read from depend on), and the primary keys and unique constraints
// of the candidates and of every table these foreign keys reach. The
// candidates hold every relation whose keys matter (the exposed relations
// and the base tables the exposed views' columns trace to), and a few
// more: readConstraints keeps only what concerns the former. A
// partition's copies of its parent's foreign keys are left out: the
// parent's key stands for them.
//
// Relations and key columns are named here only for the relations that
// are not exposed (a CASE runs its subqueries only for those): the loader
// has the names of the exposed ones, and naming them here would cost
// joins with pg_class and a lookup of pg_attribute per key.
const constraintsSQL = `
with recursive ` + viewDependenciesSQL + `,
exposed as (
  select c.oid
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  where c.relkind in ('r', 'v', 'm', 'f', 'p') and n.nspname = any($1) and not c.relispartition
),
candidates as (
  select oid from exposed
  union` + viewReadsSQL + `
),
fks as (
  select k.oid, k.conrelid, k.confrelid
  from pg_constraint k
  where k.contype = 'f' and k.conparentid = 0
    and (k.conrelid in (select oid from candidates) or k.confrelid in (select oid from candidates))
),
tables as (
  select oid from candidates
  union select conrelid from fks
  union select confrelid from fks
)
select k.contype::text, k.conname, k.conkey, coalesce(k.confkey, '{}'), k.conrelid, k.confrelid,
       case when k.conrelid not in (select oid from exposed) then
         (select array[n.nspname::text, c.relname::text]
          from pg_class c
          join pg_namespace n on n.oid = c.relnamespace
          where c.oid = k.conrelid) end,
       case when k.conrelid not in (select oid from exposed) then
         array(select a.attname::text
               from unnest(k.conkey) with ordinality u(attnum, i)
               join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.attnum
               order by u.i) end,
       case when k.confrelid <> 0 and k.confrelid not in (select oid from exposed) then
         (select array[n.nspname::text, c.relname::text]
          from pg_class c
          join pg_namespace n on n.oid = c.relnamespace
          where c.oid = k.confrelid) end,
       case when k.confrelid <> 0 and k.confrelid not in (select oid from exposed) then
         array(select a.attname::text
               from unnest(k.confkey) with ordinality u(attnum, i)
               join pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.attnum
               order by u.i) end
from pg_constraint k
where k.oid in (select oid from fks)
   or (k.contype in ('p', 'u') and k.conrelid in (select oid from tables))`

// constraintRow is one row of constraintsSQL.
type constraintRow struct {
	kind, name      string
	rel, frel       uint32
	table, foreign  QualifiedName
	keys, fkeys     []int16
	cols, fcols     []string
	colsOK, fcolsOK bool
}

// readConstraints keeps, of the candidates' constraints, the foreign keys
// from or to a relevant relation (an exposed one, or a base table of an
// exposed view) and the primary keys and unique constraints of the
// relevant relations and of the tables those foreign keys reach.
func (l *loader) readConstraints(rows pgx.Rows) error {
	var all []*constraintRow
	for rows.Next() {
		k := &constraintRow{}
		var table, cols, foreign, fcols []string
		if err := rows.Scan(&k.kind, &k.name, &k.keys, &k.fkeys, &k.rel, &k.frel, &table, &cols,
			&foreign, &fcols); err != nil {
			return err
		}
		k.table, k.cols, k.colsOK = l.keyRelation(k.rel, table, k.keys, cols)
		k.foreign, k.fcols, k.fcolsOK = l.keyRelation(k.frel, foreign, k.fkeys, fcols)
		all = append(all, k)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	// By table, then kind and name, as names compare in PostgreSQL (C
	// collation, bytewise): a table's unique constraints keep their
	// order, and names are unique per table, so the order is total.
	slices.SortFunc(all, func(a, b *constraintRow) int {
		return cmp.Or(compareNames(a.table, b.table), strings.Compare(a.kind, b.kind), strings.Compare(a.name, b.name))
	})
	// Tables whose keys matter: the relevant ones and both ends of each
	// foreign key kept.
	keyed := make(map[uint32]bool, len(l.relevant))
	for oid := range l.relevant {
		keyed[oid] = true
	}
	for _, k := range all {
		if k.kind == "f" && (l.relevant[k.rel] || l.relevant[k.frel]) {
			keyed[k.rel], keyed[k.frel] = true, true
		}
	}
	type column struct {
		rel    uint32
		attnum int16
	}
	tableNames := map[uint32]QualifiedName{}
	columnNames := map[column]string{}
	for _, k := range all {
		switch k.kind {
		case "f":
			if !l.relevant[k.rel] && !l.relevant[k.frel] {
				continue
			}
		case "p", "u":
			if !keyed[k.rel] {
				continue
			}
		}
		if !k.colsOK || !k.fcolsOK {
			continue // a key naming a column that is gone: never in a committed catalog
		}
		tableNames[k.rel] = k.table
		for i, attnum := range k.keys {
			columnNames[column{k.rel, attnum}] = k.cols[i]
		}
		switch k.kind {
		case "p", "u":
			l.cat.Keys = append(l.cat.Keys, Key{Table: k.table, Constraint: k.name, Primary: k.kind == "p", Columns: k.cols})
		case "f":
			if len(k.cols) != len(k.fcols) {
				continue
			}
			tableNames[k.frel] = k.foreign
			for i, attnum := range k.fkeys {
				columnNames[column{k.frel, attnum}] = k.fcols[i]
			}
			l.cat.ForeignKeys = append(l.cat.ForeignKeys, ForeignKey{
				Constraint: k.name, Table: k.table, ForeignTable: k.foreign, Columns: zipPairs(k.cols, k.fcols),
			})
		}
	}
	// Only view columns showing a key column can carry a relationship or
	// a view's primary key; the rest need no names.
	for _, t := range l.traced {
		col, ok := columnNames[column{t.table, int16(t.attnum)}]
		if !ok {
			continue
		}
		l.cat.ViewColumns = append(l.cat.ViewColumns, ViewColumn{
			View: t.view, Column: t.column, Table: tableNames[t.table], TableColumn: col,
		})
	}
	return nil
}

// keyRelation names the relation and the columns of one side of a key:
// from the loaded relations when it is exposed, else as the query named
// them, schema and name (both nil for an exposed relation, and for the
// missing side of a primary key or unique constraint, rel 0). ok is false
// when a column number names no column.
func (l *loader) keyRelation(rel uint32, name []string, attnums []int16, named []string) (QualifiedName, []string, bool) {
	r, exposed := l.byOID[rel]
	if !exposed {
		var q QualifiedName
		if len(name) == 2 {
			q = QualifiedName{name[0], name[1]}
		}
		return q, named, len(named) == len(attnums)
	}
	names := make([]string, len(attnums))
	for i, attnum := range attnums {
		col := r.columnAt(int(attnum))
		if col == nil {
			return QualifiedName{}, nil, false
		}
		names[i] = col.Name
	}
	return QualifiedName{r.Schema, r.Name}, names, true
}

// columnAt finds a column by its number: Columns are in attribute order,
// with gaps where columns were dropped.
func (r *Relation) columnAt(attnum int) *Column {
	i, found := slices.BinarySearchFunc(r.Columns, attnum, func(c *Column, n int) int { return c.Position - n })
	if !found {
		return nil
	}
	return r.Columns[i]
}

// functionsSQL lists plain functions (not procedures, aggregates or window
// functions) with their input parameters. A function returns rows
// (composite) when its return type, through domains, is a row type, or when
// it has OUT, INOUT or TABLE parameters (one alone included), as in
// PostgREST; a bare record is a scalar. Argument modes: i in, o out,
// b inout, v variadic, t table column. Each argument's type comes as
// format_type's text (for messages and OpenAPI) and as the schema and
// name of the type, of its element type for an array type (the element's
// typarray is the type), which SQL quotes: format_type's text is not a
// quoted name (integer[], "My Type", character varying).
const functionsSQL = `
select p.oid, n.nspname, p.proname,
       coalesce(p.proargnames, '{}'::text[]),
       coalesce(p.proargmodes::text[], '{}'::text[]),
       array(select format_type(x.t, null)
             from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality x(t, i)
             order by x.i),
       array(select coalesce(en.nspname, tn.nspname)
             from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality x(t, i)
             join pg_type t on t.oid = x.t join pg_namespace tn on tn.oid = t.typnamespace
             left join pg_type e on e.oid = t.typelem and e.typarray = t.oid
             left join pg_namespace en on en.oid = e.typnamespace
             order by x.i),
       array(select coalesce(e.typname, t.typname)::text
             from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality x(t, i)
             join pg_type t on t.oid = x.t
             left join pg_type e on e.oid = t.typelem and e.typarray = t.oid
             order by x.i),
       array(select (e.oid is not null)::int
             from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality x(t, i)
             join pg_type t on t.oid = x.t
             left join pg_type e on e.oid = t.typelem and e.typarray = t.oid
             order by x.i),
       p.pronargdefaults, p.proretset,
       format_type(p.prorettype, null), rt.typtype::text,
       coalesce(rn.nspname, ''), coalesce(rc.relname, ''),
       coalesce(p.proargmodes::text[] && '{t,b,o}', false),
       p.provolatile::text,
       coalesce(d.description, ''),
       coalesce(an.nspname, ''), coalesce(ac.relname, ''), p.prorows,
       coalesce(p.proconfig, '{}'::text[]),
       p.prolang = (select l.oid from pg_language l where l.lanname = 'sql') and p.proretset and not p.proisstrict and p.provolatile <> 'v'
         and not p.prosecdef and p.proconfig is null
from pg_proc p
join pg_namespace n on n.oid = p.pronamespace
join pg_type rt on rt.oid = (` + returnBaseTypeSQL + `)
left join pg_class rc on rc.oid = rt.typrelid and rc.relkind <> 'c'
left join pg_namespace rn on rn.oid = rc.relnamespace
left join pg_type at on p.pronargs = 1 and at.oid = p.proargtypes[0]
left join pg_class ac on ac.oid = at.typrelid and ac.relkind in ('r', 'v', 'm', 'f', 'p')
left join pg_namespace an on an.oid = ac.relnamespace
left join pg_description d on d.objoid = p.oid and d.classoid = 'pg_proc'::regclass
where p.prokind = 'f'
  and n.nspname = any($1)
  and rt.typname not in ('trigger', 'event_trigger', 'internal', 'language_handler', 'fdw_handler',
                         'index_am_handler', 'tsm_handler', 'table_am_handler')`

func (l *loader) readFunctions(rows pgx.Rows) error {
	for rows.Next() {
		f := &Function{}
		var names, modes, types, typeSchemas, typeNames []string
		var typeArrayDims []int
		var ndefaults int
		var typtype, vol string
		var hasOutParams bool
		var config []string
		if err := rows.Scan(&f.OID, &f.Schema, &f.Name, &names, &modes, &types, &typeSchemas, &typeNames, &typeArrayDims, &ndefaults,
			&f.Returns.Set, &f.Returns.Type, &typtype,
			&f.Returns.RelationSchema, &f.Returns.RelationName, &hasOutParams, &vol, &f.Description,
			&f.ArgRelation.Schema, &f.ArgRelation.Name, &f.Rows, &config, &f.Inlinable); err != nil {
			return err
		}
		for _, c := range config {
			if name, value, ok := strings.Cut(c, "="); ok {
				f.Settings = append(f.Settings, Setting{Name: name, Value: value})
			}
		}
		f.Returns.Pseudo = typtype == "p"
		f.Volatility = vol[0]
		f.Params = inputParams(names, modes, argTypes(types, typeSchemas, typeNames, typeArrayDims), ndefaults)
		switch {
		case f.Returns.Type == "void":
			f.Returns.Shape = ReturnsVoid
		case typtype == "c" || hasOutParams:
			f.Returns.Shape = ReturnsComposite
		default:
			f.Returns.Shape = ReturnsScalar
		}
		if _, ok := l.byName[QualifiedName{f.Returns.RelationSchema, f.Returns.RelationName}]; !ok {
			f.Returns.RelationSchema, f.Returns.RelationName = "", ""
		}
		l.cat.Functions = append(l.cat.Functions, f)
	}
	return rows.Err()
}

// argType is one argument's type as the catalog names it.
type argType struct {
	display, schema, name string
	arrayDims             int
}

// argTypes zips the functions query's per-argument type columns, which
// have one element per argument each.
func argTypes(display, schemas, names []string, arrayDims []int) []argType {
	out := make([]argType, len(display))
	for i, d := range display {
		out[i].display = d
		if i < len(schemas) && i < len(names) && i < len(arrayDims) {
			out[i].schema, out[i].name, out[i].arrayDims = schemas[i], names[i], arrayDims[i]
		}
	}
	return out
}

// inputParams picks the input parameters out of the full argument lists;
// the last ndefaults of them have defaults.
func inputParams(names, modes []string, types []argType, ndefaults int) []Param {
	var params []Param
	for i, typ := range types {
		mode := "i"
		if i < len(modes) {
			mode = modes[i]
		}
		if mode == "o" || mode == "t" {
			continue
		}
		p := Param{Type: typ.display, TypeSchema: typ.schema, TypeName: typ.name, TypeArrayDims: typ.arrayDims,
			Variadic: mode == "v"}
		if i < len(names) {
			p.Name = names[i]
		}
		params = append(params, p)
	}
	for i := len(params) - ndefaults; i < len(params); i++ {
		if i >= 0 {
			params[i].HasDefault = true
		}
	}
	return params
}
