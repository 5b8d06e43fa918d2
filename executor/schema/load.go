package schema

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Querier is what Load needs of a connection; *pgx.Conn, pgx.Tx and
// *pgxpool.Pool all satisfy it.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Load reads the catalog for schemas and builds the cache. It runs as the
// authenticator and reads only pg_catalog, so it needs no privileges on
// the schemas. A handful of queries read everything, whatever the number
// of relations; when q can begin transactions they run in one read-only
// repeatable-read transaction, so that they see one snapshot of the
// catalog.
func Load(ctx context.Context, q Querier, schemas []string) (*Cache, error) {
	if b, ok := q.(txBeginner); ok {
		tx, err := b.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
		if err != nil {
			return nil, fmt.Errorf("beginning the schema cache transaction: %w", err)
		}
		// Read-only: rolling back loses nothing, and a failed rollback
		// leaves a connection the pool discards.
		defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
		q = tx
	}
	l := &loader{
		q:      q,
		byName: map[QualifiedName]*Relation{},
		cat:    &Catalog{Schemas: schemas},
	}
	var version string
	if err := q.QueryRow(ctx, "select current_setting('server_version_num')").Scan(&version); err != nil {
		return nil, fmt.Errorf("reading server version: %w", err)
	}
	n, err := strconv.Atoi(version)
	if err != nil {
		return nil, fmt.Errorf("parsing server_version_num %q: %w", version, err)
	}
	l.cat.ServerVersionNum = n
	steps := []struct {
		what string
		run  func(context.Context) error
	}{
		{"relations", l.loadRelations},
		{"columns", l.loadColumns},
		{"view definitions", l.loadViews},
		{"keys", l.loadConstraints},
		{"functions", l.loadFunctions},
		{"role settings", l.loadRoleSettings},
		{"media type handlers", l.loadMediaHandlers},
		{"data representations", l.loadRepresentations},
		{"domains", l.loadDomains},
		{"time zones", l.loadTimezones},
	}
	for _, step := range steps {
		if err := step.run(ctx); err != nil {
			return nil, fmt.Errorf("loading %s: %w", step.what, err)
		}
	}
	return Build(l.cat), nil
}

// txBeginner is what *pgx.Conn, *pgxpool.Conn and *pgxpool.Pool offer to
// run Load's queries in one transaction.
type txBeginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// loader carries what one Load has read so far.
type loader struct {
	q      Querier
	cat    *Catalog
	byName map[QualifiedName]*Relation
	// traced are the exposed views' columns traced to a base column;
	// relevant lists the oids whose keys matter: the exposed relations
	// and the base tables of exposed views.
	traced   []tracedColumn
	relevant []uint32
}

// tracedColumn is a view column that shows attnum of table unchanged.
type tracedColumn struct {
	view   QualifiedName
	column string
	table  uint32
	attnum int
}

func (l *loader) schemas() []string { return l.cat.Schemas }

const relationsSQL = `
select c.oid, n.nspname, c.relname, c.relkind::text,
       coalesce(d.description, ''),
       c.relkind in ('r', 'p') or (pg_relation_is_updatable(c.oid, true) & 8) = 8,
       c.relkind in ('r', 'p') or (pg_relation_is_updatable(c.oid, true) & 4) = 4,
       c.relkind in ('r', 'p') or (pg_relation_is_updatable(c.oid, true) & 16) = 16
from pg_class c
join pg_namespace n on n.oid = c.relnamespace
left join pg_description d on d.objoid = c.oid and d.classoid = 'pg_class'::regclass and d.objsubid = 0
where c.relkind in ('r', 'v', 'm', 'f', 'p')
  and n.nspname = any($1)
  and not c.relispartition`

func (l *loader) loadRelations(ctx context.Context) error {
	rows, err := l.q.Query(ctx, relationsSQL, l.schemas())
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		r := &Relation{}
		var kind string
		if err := rows.Scan(&r.oid, &r.Schema, &r.Name, &kind, &r.Description, &r.Insertable, &r.Updatable, &r.Deletable); err != nil {
			return err
		}
		r.Kind = RelKind(kind[0])
		l.cat.Relations = append(l.cat.Relations, r)
		l.byName[QualifiedName{r.Schema, r.Name}] = r
		l.relevant = append(l.relevant, r.oid)
	}
	return rows.Err()
}

const columnsSQL = `
select n.nspname, c.relname, a.attname, a.attnum,
       format_type(a.atttypid, a.atttypmod),
       not a.attnotnull,
       coalesce(pg_get_expr(ad.adbin, ad.adrelid), ''),
       ad.adbin is not null,
       coalesce(information_schema._pg_char_max_length(
         information_schema._pg_truetypid(a.*, t.*), information_schema._pg_truetypmod(a.*, t.*)), 0),
       coalesce((select array_agg(e.enumlabel order by e.enumsortorder)
                 from pg_enum e
                 where e.enumtypid = coalesce(nullif(t.typbasetype, 0), t.oid)), '{}'),
       coalesce(d.description, ''),
       -- What a missing value becomes on INSERT: the column's default,
       -- an identity's next value, or its domain's default; a generated
       -- column takes none (PostgREST's missing=default does the same).
       case when a.attgenerated = '' then
         coalesce(pg_get_expr(ad.adbin, ad.adrelid),
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
left join pg_attrdef ad on ad.adrelid = a.attrelid and ad.adnum = a.attnum
left join pg_description d on d.objoid = c.oid and d.classoid = 'pg_class'::regclass and d.objsubid = a.attnum
where c.relkind in ('r', 'v', 'm', 'f', 'p')
  and n.nspname = any($1)
  and not c.relispartition
  and a.attnum > 0 and not a.attisdropped
order by n.nspname, c.relname, a.attnum`

func (l *loader) loadColumns(ctx context.Context) error {
	rows, err := l.q.Query(ctx, columnsSQL, l.schemas())
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name QualifiedName
		col := &Column{}
		var insertDefault *string
		if err := rows.Scan(&name.Schema, &name.Name, &col.Name, &col.Position, &col.Type, &col.Nullable,
			&col.Default, &col.HasDefault, &col.MaxLength, &col.EnumValues, &col.Description, &insertDefault); err != nil {
			return err
		}
		if insertDefault != nil {
			col.InsertDefault = *insertDefault
		}
		if r, ok := l.byName[name]; ok {
			r.Columns = append(r.Columns, col)
		}
	}
	return rows.Err()
}

// viewsSQL reads the stored query of the exposed views ($1) and of every
// view they read from, in any schema, following the dependencies their
// rewrite rules record in pg_depend.
const viewsSQL = `
with recursive views(oid) as (
  select unnest($1::oid[])
  union
  select d.refobjid
  from views v
  join pg_rewrite r on r.ev_class = v.oid and r.rulename = '_RETURN'
  join pg_depend d on d.classid = 'pg_rewrite'::regclass and d.objid = r.oid
                  and d.refclassid = 'pg_class'::regclass
  join pg_class c on c.oid = d.refobjid and c.relkind in ('v', 'm')
)
select r.ev_class, r.ev_action::text
from views v
join pg_rewrite r on r.ev_class = v.oid and r.rulename = '_RETURN'`

// loadViews traces every column of the exposed views that shows a table
// column unchanged to that column, through views over views, from the
// target lists PostgreSQL keeps for each view's query.
func (l *loader) loadViews(ctx context.Context) error {
	var views []*Relation
	var oids []uint32
	for _, r := range l.cat.Relations {
		if r.IsView() {
			views = append(views, r)
			oids = append(oids, r.oid)
		}
	}
	if len(views) == 0 {
		return nil
	}
	rows, err := l.q.Query(ctx, viewsSQL, oids)
	if err != nil {
		return err
	}
	defer rows.Close()
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
	seen := map[uint32]bool{}
	for _, v := range views {
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
			if !seen[table] {
				seen[table] = true
				l.relevant = append(l.relevant, table)
			}
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

// constraintsSQL reads the foreign keys from or to the relations in $1
// (the exposed relations and the base tables of exposed views), and the
// primary keys and unique constraints of those relations and of every
// table these foreign keys reach. A partition's copies of its parent's
// foreign keys are left out: the parent's key stands for them.
const constraintsSQL = `
with fks as (
  select k.oid, k.conrelid, k.confrelid
  from pg_constraint k
  where k.contype = 'f' and k.conparentid = 0
    and (k.conrelid = any($1::oid[]) or k.confrelid = any($1::oid[]))
),
tables as (
  select unnest($1::oid[]) as oid
  union select conrelid from fks
  union select confrelid from fks
)
select k.contype::text, k.conname,
       k.conrelid, n.nspname, c.relname, k.conkey,
       array(select a.attname::text
             from unnest(k.conkey) with ordinality u(attnum, i)
             join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.attnum
             order by u.i),
       k.confrelid, coalesce(fn.nspname, ''), coalesce(fc.relname, ''), coalesce(k.confkey, '{}'),
       array(select a.attname::text
             from unnest(k.confkey) with ordinality u(attnum, i)
             join pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.attnum
             order by u.i)
from pg_constraint k
join pg_class c on c.oid = k.conrelid
join pg_namespace n on n.oid = c.relnamespace
left join pg_class fc on fc.oid = k.confrelid
left join pg_namespace fn on fn.oid = fc.relnamespace
where k.oid in (select oid from fks)
   or (k.contype in ('p', 'u') and k.conrelid in (select oid from tables))
order by n.nspname, c.relname, k.contype, k.conname`

func (l *loader) loadConstraints(ctx context.Context) error {
	rows, err := l.q.Query(ctx, constraintsSQL, l.relevant)
	if err != nil {
		return err
	}
	defer rows.Close()
	type column struct {
		rel    uint32
		attnum int16
	}
	tableNames := map[uint32]QualifiedName{}
	columnNames := map[column]string{}
	for rows.Next() {
		var kind, name string
		var rel, frel uint32
		var table, foreign QualifiedName
		var keys, fkeys []int16
		var cols, fcols []string
		if err := rows.Scan(&kind, &name, &rel, &table.Schema, &table.Name, &keys, &cols,
			&frel, &foreign.Schema, &foreign.Name, &fkeys, &fcols); err != nil {
			return err
		}
		if len(keys) != len(cols) || len(fkeys) != len(fcols) {
			continue // a key naming a column that is gone: never in a committed catalog
		}
		tableNames[rel] = table
		for i, k := range keys {
			columnNames[column{rel, k}] = cols[i]
		}
		switch kind {
		case "p", "u":
			l.cat.Keys = append(l.cat.Keys, Key{Table: table, Constraint: name, Primary: kind == "p", Columns: cols})
		case "f":
			if len(cols) != len(fcols) {
				continue
			}
			tableNames[frel] = foreign
			for i, k := range fkeys {
				columnNames[column{frel, k}] = fcols[i]
			}
			l.cat.ForeignKeys = append(l.cat.ForeignKeys, ForeignKey{
				Constraint: name, Table: table, ForeignTable: foreign, Columns: zipPairs(cols, fcols),
			})
		}
	}
	if err := rows.Err(); err != nil {
		return err
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
       coalesce(p.proconfig, '{}'::text[])
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

func (l *loader) loadFunctions(ctx context.Context) error {
	rows, err := l.q.Query(ctx, functionsSQL, l.schemas())
	if err != nil {
		return err
	}
	defer rows.Close()
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
			&f.ArgRelation.Schema, &f.ArgRelation.Name, &f.Rows, &config); err != nil {
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
