package plan_test

import "github.com/pgrest/caddy-pgrest/executor/schemacache"

// The plan tests build their schema caches without a database, from
// catalogs written with these: tables whose columns share one type,
// primary keys named <table>_pkey and foreign keys <table>_<column>_fkey
// that reference the other table's id.

// qualified names the relation name of schema.
func qualified(schema, name string) schemacache.QualifiedName {
	return schemacache.QualifiedName{Schema: schema, Name: name}
}

// apiName names the relation name of schema api, where most tests keep
// theirs.
func apiName(name string) schemacache.QualifiedName { return qualified("api", name) }

// tablesOf returns a maker of tables of schema whose columns, numbered
// in order, all have type typ.
func tablesOf(schema, typ string) func(name string, cols ...string) *schemacache.Relation {
	return func(name string, cols ...string) *schemacache.Relation {
		r := &schemacache.Relation{Schema: schema, Name: name, Kind: schemacache.KindTable}
		for i, c := range cols {
			r.Columns = append(r.Columns, &schemacache.Column{Name: c, Type: typ, Position: i + 1})
		}
		return r
	}
}

// primaryKey is table's primary key on cols.
func primaryKey(table schemacache.QualifiedName, cols ...string) schemacache.Key {
	return schemacache.Key{Table: table, Constraint: table.Name + "_pkey", Primary: true, Columns: cols}
}

// foreignKey is table's foreign key from col to ref's id.
func foreignKey(table schemacache.QualifiedName, col string, ref schemacache.QualifiedName) schemacache.ForeignKey {
	return schemacache.ForeignKey{Constraint: table.Name + "_" + col + "_fkey", Table: table, ForeignTable: ref,
		Columns: [][2]string{{col, "id"}}}
}

// apiPrimaryKey is primaryKey of table in schema api.
func apiPrimaryKey(table string, cols ...string) schemacache.Key {
	return primaryKey(apiName(table), cols...)
}

// apiForeignKey is foreignKey between tables of schema api.
func apiForeignKey(table, col, ref string) schemacache.ForeignKey {
	return foreignKey(apiName(table), col, apiName(ref))
}
