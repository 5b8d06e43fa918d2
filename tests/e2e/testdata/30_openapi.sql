-- Fixtures of the API description tests (openapi_test.go): the schema oa,
-- exposed beside api by those tests only, and the roles oa_*. web_anon may
-- read most of it; webuser may also use oa_secrets and oa_hidden();
-- oa_outsider has no usage on the schema. The cases of PostgREST's spec
-- describe PostgREST's own fixture instead (spec_fixture_test.go).

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
