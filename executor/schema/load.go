package schema

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// Querier is what Load needs of a connection; *pgx.Conn, pgx.Tx and
// *pgxpool.Pool all satisfy it.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Load reads the catalog for schemas. It runs as the authenticator and
// reads only pg_catalog, so it needs no privileges on the schemas.
func Load(ctx context.Context, q Querier, schemas []string) (*Cache, error) {
	c := &Cache{
		Relations: make(map[string]map[string]*Relation, len(schemas)),
		Functions: make(map[string]map[string][]*Function, len(schemas)),
	}
	for _, s := range schemas {
		c.Relations[s] = map[string]*Relation{}
		c.Functions[s] = map[string][]*Function{}
	}
	var version string
	if err := q.QueryRow(ctx, "select current_setting('server_version_num')").Scan(&version); err != nil {
		return nil, fmt.Errorf("reading server version: %w", err)
	}
	n, err := strconv.Atoi(version)
	if err != nil {
		return nil, fmt.Errorf("parsing server_version_num %q: %w", version, err)
	}
	c.ServerVersionNum = n
	if err := loadRelations(ctx, q, schemas, c); err != nil {
		return nil, fmt.Errorf("loading relations: %w", err)
	}
	if err := loadColumns(ctx, q, schemas, c); err != nil {
		return nil, fmt.Errorf("loading columns: %w", err)
	}
	if err := loadPrimaryKeys(ctx, q, schemas, c); err != nil {
		return nil, fmt.Errorf("loading primary keys: %w", err)
	}
	if err := loadFunctions(ctx, q, schemas, c); err != nil {
		return nil, fmt.Errorf("loading functions: %w", err)
	}
	return c, nil
}

const relationsSQL = `
select n.nspname, c.relname, c.relkind::text,
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

func loadRelations(ctx context.Context, q Querier, schemas []string, c *Cache) error {
	rows, err := q.Query(ctx, relationsSQL, schemas)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		r := &Relation{columnIndex: map[string]*Column{}}
		var kind string
		if err := rows.Scan(&r.Schema, &r.Name, &kind, &r.Description, &r.Insertable, &r.Updatable, &r.Deletable); err != nil {
			return err
		}
		r.Kind = RelKind(kind[0])
		c.Relations[r.Schema][r.Name] = r
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
       coalesce(d.description, '')
from pg_attribute a
join pg_class c on c.oid = a.attrelid
join pg_namespace n on n.oid = c.relnamespace
join pg_type t on t.oid = a.atttypid
left join pg_attrdef ad on ad.adrelid = a.attrelid and ad.adnum = a.attnum
left join pg_description d on d.objoid = c.oid and d.classoid = 'pg_class'::regclass and d.objsubid = a.attnum
where c.relkind in ('r', 'v', 'm', 'f', 'p')
  and n.nspname = any($1)
  and a.attnum > 0 and not a.attisdropped
order by n.nspname, c.relname, a.attnum`

func loadColumns(ctx context.Context, q Querier, schemas []string, c *Cache) error {
	rows, err := q.Query(ctx, columnsSQL, schemas)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var schema, rel string
		col := &Column{}
		if err := rows.Scan(&schema, &rel, &col.Name, &col.Position, &col.Type, &col.Nullable,
			&col.Default, &col.HasDefault, &col.MaxLength, &col.EnumValues, &col.Description); err != nil {
			return err
		}
		r, ok := c.Relations[schema][rel]
		if !ok {
			continue // a partition: its parent is the exposed relation
		}
		r.Columns = append(r.Columns, col)
		r.columnIndex[col.Name] = col
	}
	return rows.Err()
}

const primaryKeysSQL = `
select n.nspname, c.relname,
       array(select a.attname from unnest(k.conkey) with ordinality u(attnum, i)
             join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.attnum
             order by u.i)
from pg_constraint k
join pg_class c on c.oid = k.conrelid
join pg_namespace n on n.oid = c.relnamespace
where k.contype = 'p' and n.nspname = any($1)`

func loadPrimaryKeys(ctx context.Context, q Querier, schemas []string, c *Cache) error {
	rows, err := q.Query(ctx, primaryKeysSQL, schemas)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var schema, rel string
		var cols []string
		if err := rows.Scan(&schema, &rel, &cols); err != nil {
			return err
		}
		if r, ok := c.Relations[schema][rel]; ok {
			r.PrimaryKey = cols
		}
	}
	return rows.Err()
}

// functionsSQL lists plain functions (not procedures, aggregates or window
// functions) with their input parameters. Argument modes: i in, o out,
// b inout, v variadic, t table column.
const functionsSQL = `
select p.oid, n.nspname, p.proname,
       coalesce(p.proargnames, '{}'::text[]),
       coalesce(p.proargmodes::text[], '{}'::text[]),
       array(select format_type(x.t, null)
             from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality x(t, i)
             order by x.i),
       p.pronargs, p.pronargdefaults, p.proretset, p.provariadic <> 0,
       format_type(p.prorettype, null), rt.typtype::text,
       coalesce(rn.nspname, ''), coalesce(rc.relname, ''),
       p.prorettype = 'record'::regtype,
       p.provolatile::text,
       coalesce(d.description, '')
from pg_proc p
join pg_namespace n on n.oid = p.pronamespace
join pg_type rt on rt.oid = p.prorettype
left join pg_class rc on rc.oid = rt.typrelid and rc.relkind <> 'c'
left join pg_namespace rn on rn.oid = rc.relnamespace
left join pg_description d on d.objoid = p.oid and d.classoid = 'pg_proc'::regclass
where p.prokind = 'f'
  and n.nspname = any($1)
  and rt.typname not in ('trigger', 'event_trigger', 'internal', 'language_handler', 'fdw_handler',
                         'index_am_handler', 'tsm_handler', 'table_am_handler')`

func loadFunctions(ctx context.Context, q Querier, schemas []string, c *Cache) error {
	rows, err := q.Query(ctx, functionsSQL, schemas)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		f := &Function{}
		var names, modes, types []string
		var nargs, ndefaults int
		var typtype, vol string
		var returnsRecord bool
		if err := rows.Scan(&f.OID, &f.Schema, &f.Name, &names, &modes, &types, &nargs, &ndefaults,
			&f.Returns.Set, &f.Variadic, &f.Returns.Type, &typtype,
			&f.Returns.RelationSchema, &f.Returns.RelationName, &returnsRecord, &vol, &f.Description); err != nil {
			return err
		}
		f.Volatility = vol[0]
		f.Params = inputParams(names, modes, types, ndefaults)
		switch {
		case f.Returns.Type == "void":
			f.Returns.Shape = ReturnsVoid
		case typtype == "c" || returnsRecord:
			f.Returns.Shape = ReturnsComposite
		default:
			f.Returns.Shape = ReturnsScalar
		}
		if _, ok := c.Relations[f.Returns.RelationSchema][f.Returns.RelationName]; !ok {
			f.Returns.RelationSchema, f.Returns.RelationName = "", ""
		}
		c.Functions[f.Schema][f.Name] = append(c.Functions[f.Schema][f.Name], f)
	}
	return rows.Err()
}

// inputParams picks the input parameters out of the full argument lists;
// the last ndefaults of them have defaults.
func inputParams(names, modes, types []string, ndefaults int) []Param {
	var params []Param
	for i, typ := range types {
		mode := "i"
		if i < len(modes) {
			mode = modes[i]
		}
		if mode == "o" || mode == "t" {
			continue
		}
		p := Param{Type: typ, Variadic: mode == "v"}
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
