-- Fixtures of the API description tests (openapi_test.go): the schema oa,
-- exposed beside api by those tests only, and the roles oa_*. web_anon may
-- read most of it; webuser may also use oa_secrets and oa_hidden();
-- oa_outsider has no usage on the schema.

create role oa_outsider nologin;
grant oa_outsider to authenticator;

create schema oa;
comment on schema oa is 'Shop API

The objects the API description tests describe.';
grant usage on schema oa to web_anon, webuser;

create type oa.oa_status as enum ('new', 'sold');

create table oa.oa_items (
  id      serial primary key,
  name    varchar(40) not null,
  price   numeric(10, 2) default 0,
  status  oa.oa_status not null default 'new',
  tags    text[],
  details jsonb,
  created timestamptz not null default now()
);
comment on table oa.oa_items is 'Things for sale
Every row is one article.';
comment on column oa.oa_items.name is 'What the article is called';
comment on column oa.oa_items.price is 'Price in euros';

create table oa.oa_orders (
  id      bigint primary key,
  item_id int not null references oa.oa_items (id),
  note    text
);

-- Readable by webuser only.
create table oa.oa_secrets (
  id     int primary key,
  secret text not null
);
comment on table oa.oa_secrets is 'Only webuser may see these';

-- web_anon may read two of its three columns.
create table oa.oa_people (
  id   int primary key,
  name text,
  ssn  text
);

-- A view that takes no writes (DISTINCT).
create view oa.oa_names as select distinct name from oa.oa_items;

create function oa.oa_add(a int, b int default 1) returns int
language sql immutable
as $$ select a + b $$;
comment on function oa.oa_add(int, int) is 'Adds two numbers
Returns a + b.';

create function oa.oa_touch(ids int[]) returns void
language sql volatile
as $$ select $$;

create function oa.oa_hidden() returns int
language sql stable
as $$ select 42 $$;
revoke execute on function oa.oa_hidden() from public;
grant execute on function oa.oa_hidden() to webuser;

grant select on oa.oa_items, oa.oa_orders, oa.oa_names to web_anon, webuser;
grant insert, update on oa.oa_items to webuser;
grant usage on sequence oa.oa_items_id_seq to webuser;
grant select, insert, update, delete on oa.oa_secrets, oa.oa_people to webuser;
grant select (id, name) on oa.oa_people to web_anon;

-- PostgREST's openapi_types, a column of each type its OpenApiSpec
-- describes.
create table oa.openapi_types (
  a_character_varying character varying,
  a_character         character(1),
  a_text              text,
  a_boolean           boolean,
  a_smallint          smallint,
  a_integer           integer,
  a_bigint            bigint,
  a_numeric           numeric,
  a_real              real,
  a_double_precision  double precision,
  a_json              json,
  a_jsonb             jsonb,
  a_text_arr          text[],
  a_int_arr           int[],
  a_bool_arr          boolean[],
  a_char_arr          char[],
  a_varchar_arr       varchar[],
  a_bigint_arr        bigint[],
  a_numeric_arr       numeric[],
  a_json_arr          json[],
  a_jsonb_arr         jsonb[]
);
grant select on oa.openapi_types to web_anon, webuser;

-- PostgREST's menagerie, openapi_defaults and varied_arguments_openapi:
-- the enum's format, defaults and the types of function arguments its
-- OpenApiSpec describes.
create type oa.enum_menagerie_type as enum ('foo', 'bar');

create table oa.menagerie (
  "integer" integer not null,
  double double precision not null,
  "varchar" character varying not null,
  "boolean" boolean not null,
  date date not null,
  money money not null,
  enum oa.enum_menagerie_type not null
);

create table oa.openapi_defaults(
  "text" text default 'default',
  "boolean" boolean default false,
  "integer" integer default 42,
  "numeric" numeric default 42.2,
  "date" date default '1900-01-01'::date,
  "time" time default '13:00:00'::time without time zone
);
grant select on oa.menagerie, oa.openapi_defaults to web_anon, webuser;

create function oa.varied_arguments_openapi(
  double double precision,
  "varchar" character varying,
  "boolean" boolean,
  date date,
  money money,
  enum oa.enum_menagerie_type,
  text_arr text[],
  int_arr int[],
  bool_arr boolean[],
  char_arr char[],
  varchar_arr varchar[],
  bigint_arr bigint[],
  numeric_arr numeric[],
  json_arr json[],
  jsonb_arr jsonb[],
  "integer" integer default 42,
  "json" json default '{}',
  jsonb jsonb default '{}'
) returns json language sql immutable
as $_$ select json_build_object('double', double) $_$;
comment on function oa.varied_arguments_openapi is $_$An RPC function

Just a test for RPC function arguments$_$;

-- PostgREST's objects of OpenApiSpec's privileges, OUT/INOUT, variadic and
-- volatility cases, and of IgnorePrivOpenApiSpec (oa_v1 stands for its
-- schema v1), copied as they are there. webuser stands for
-- postgrest_test_author. jwt_test is immutable as PostgREST's, without
-- pgjwt's sign, which these tests do not call.
create table oa.authors_only (
  owner  character varying not null,
  secret character varying not null primary key
);
grant all on oa.authors_only to webuser;

create function oa.privileged_hello(name text) returns text as $$
  select 'Privileged hello to ' || $1;
$$ language sql;
revoke execute on function oa.privileged_hello(text) from public;
grant execute on function oa.privileged_hello(text) to webuser;

create function oa.many_out_params(OUT my_json json, OUT num int, OUT str text) AS $$
  select '{"a": 1, "b": "two"}'::json, 3, 'four'::text;
$$ language sql;

create function oa.many_inout_params(INOUT num int, INOUT str text, INOUT b bool DEFAULT true) AS $$
  select num, str, b;
$$ language sql;

CREATE FUNCTION oa.variadic_param(VARIADIC v TEXT[] DEFAULT '{}') RETURNS text[]
IMMUTABLE
LANGUAGE SQL AS $$
  SELECT v
$$;

create function oa.reset_table(tbl_name text default '', tbl_data json default '[]') returns void as $_$ begin
  execute format(
  $$
    delete from %I where true; -- WHERE is required for pg-safeupdate tests
    insert into %I
    select * from json_populate_recordset(null::%I, $1);
  $$::text,
  tbl_name, tbl_name, tbl_name)
  using tbl_data;
end; $_$ language plpgsql volatile;

create table oa.users (
  id   integer primary key,
  name text not null
);
grant select on oa.users to web_anon, webuser;

CREATE FUNCTION oa.getallusers() RETURNS SETOF oa.users AS $$
  SELECT * FROM oa.users;
$$ LANGUAGE sql STABLE;

create function oa.jwt_test() returns text
    language sql security definer immutable
    as $$ select 'not a token' $$;

create table oa.entities (
  id integer primary key,
  name text,
  arr integer[],
  text_search_vector tsvector
);

create table oa.child_entities (
  id integer primary key,
  name text,
  parent_id integer references oa.entities(id)
);

create table oa.grandchild_entities (
  id integer primary key,
  name text,
  parent_id integer references oa.child_entities(id),
  or_starting_col text,
  and_starting_col text,
  jsonb_col jsonb
);
comment on table oa.grandchild_entities is
$$grandchild_entities summary

grandchild_entities description
that spans
multiple lines$$;
grant select on oa.entities, oa.child_entities, oa.grandchild_entities to web_anon, webuser;

create schema oa_v1;
grant usage on schema oa_v1 to web_anon, webuser;

create table oa_v1.parents (
  id    int primary key
, name text
);

create table oa_v1.children (
  id int primary key
, name text
, parent_id int
, constraint parent foreign key(parent_id)
  references oa_v1.parents(id)
);

create function oa_v1.get_parents_below(id int)
returns setof oa_v1.parents as $$
  select * from oa_v1.parents where id < $1;
$$ language sql;

-- RootSpec's db_root_spec function, as PostgREST's.
create domain oa."application/openapi+json" as json;

create or replace function oa.root() returns oa."application/openapi+json" as $_$
declare
openapi json = $$
  {
    "swagger": "2.0",
    "info":{
      "title":"PostgREST API",
      "description":"This is a dynamic API generated by PostgREST"
    }
  }
$$;
begin
  return openapi;
end
$_$ language plpgsql;
