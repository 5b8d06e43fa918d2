package schemacache

// returnBaseTypeSQL is the functions query's return type, followed through
// domains to the type underneath, as PostgREST resolves it: a function
// returning a domain over a table's row type returns that table's rows
// (filters and embeds included), one returning a domain over a composite
// type returns an object. It is a correlated subquery over pg_proc p.
const returnBaseTypeSQL = `with recursive base(oid, typtype, typbasetype) as (
    select t.oid, t.typtype, t.typbasetype from pg_type t where t.oid = p.prorettype
    union all
    select t.oid, t.typtype, t.typbasetype from pg_type t join base on t.oid = base.typbasetype
    where base.typtype = 'd')
  select base.oid from base where base.typtype <> 'd'`
