package changes

import (
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgxpool"
)

// relation is a table as the replication stream describes it (pgoutput's
// Relation message: names, column names and types in order) with what
// the catalog adds: whether row-level security is on, and its primary
// key, by which the feed asks whether a subscriber may see a row, as
// Supabase's walrus does.
type relation struct {
	id      uint32
	schema  string
	table   string
	columns []column
	rls     bool
	pkey    []string
	// visible is the visibility query of this table (see authorize.go),
	// made once per Relation message.
	visible string
}

type column struct {
	name string
	typ  *typeInfo
	// key marks the replica identity's columns: with the default
	// identity the old row of a DELETE or UPDATE has only them (the
	// others arrive as nulls, which Supabase does not send).
	key bool
}

// catalog looks up, through the pool, what pgoutput does not send.
type catalog struct {
	pool *pgxpool.Pool

	mu    sync.Mutex
	types map[uint32]*typeInfo
}

const typeQuery = `select t.oid::int8, t.typname::text, b.oid::int8, b.typcategory::text, b.typelem::int8
from pg_catalog.pg_type t
join pg_catalog.pg_type b on b.oid = case when t.typtype = 'd' then t.typbasetype else t.oid end
where t.oid = $1::int8::oid`

// typeOf returns the type of oid, looking it (and an array's element
// type) up once.
func (c *catalog) typeOf(ctx context.Context, oid uint32) (*typeInfo, error) {
	c.mu.Lock()
	t, ok := c.types[oid]
	c.mu.Unlock()
	if ok {
		return t, nil
	}
	var (
		self, base, elem int64
		name, category   string
	)
	if err := c.pool.QueryRow(ctx, typeQuery, int64(oid)).Scan(&self, &name, &base, &category, &elem); err != nil {
		return nil, fmt.Errorf("looking up type %d: %w", oid, err)
	}
	t = &typeInfo{name: name, kind: kindOf(uint32(base), category)}
	if t.kind == kindArray && elem != 0 {
		e, err := c.typeOf(ctx, uint32(elem))
		if err != nil {
			return nil, err
		}
		t.elem = e
	}
	c.mu.Lock()
	if c.types == nil {
		c.types = map[uint32]*typeInfo{}
	}
	c.types[oid] = t
	c.mu.Unlock()
	return t, nil
}

const relationQuery = `select c.relrowsecurity,
  coalesce((select array_agg(a.attname::text order by a.attnum)
    from pg_catalog.pg_index i
    join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
    where i.indrelid = c.oid and i.indisprimary), '{}')
from pg_catalog.pg_class c where c.oid = $1::int8::oid`

// relationOf builds a relation from pgoutput's description of it.
func (c *catalog) relationOf(ctx context.Context, m *pglogrepl.RelationMessage) (*relation, error) {
	r := &relation{id: m.RelationID, schema: m.Namespace, table: m.RelationName}
	for _, col := range m.Columns {
		t, err := c.typeOf(ctx, col.DataType)
		if err != nil {
			return nil, err
		}
		r.columns = append(r.columns, column{name: col.Name, typ: t, key: col.Flags&1 != 0})
	}
	if err := c.pool.QueryRow(ctx, relationQuery, int64(m.RelationID)).Scan(&r.rls, &r.pkey); err != nil {
		return nil, fmt.Errorf("looking up table %s.%s: %w", m.Namespace, m.RelationName, err)
	}
	r.visible = visibilityQuery(r)
	return r, nil
}
