-- fixture.sql: what the postgrest-js client suite needs beyond
-- tests/fixtures/read.sql, loaded after it (as a superuser) by
-- tests/client/server. Only this suite's database has these objects.
--
-- Functions in api (called with named arguments through /rpc)
--   add_numbers(a int, b int) int                 scalar
--   client_by_id(client_id int) api.clients       one composite (null when absent)
--   clients_in_country(country_code text) setof api.clients
--                                                 composite set, by id
--   client_names() setof text                     scalar set, by id
--   do_nothing() void                             no content
--   whoami() text                                 current_user of the request
--   jwt_sub() text                                the token's sub claim (null
--                                                 when anonymous)
--   webuser_secret() int                          executable by webuser only
-- Functions in v2
--   project_titles() setof text                   v2.projects' titles, by id;
--                                                 absent from api
-- Tables in api
--   member_notes [3]                              readable by webuser only

begin;

create function api.add_numbers(a int, b int) returns int
  language sql immutable
  as $$ select a + b $$;

create function api.client_by_id(client_id int) returns api.clients
  language sql stable
  as $$ select c.* from api.clients c where c.id = client_by_id.client_id $$;

create function api.clients_in_country(country_code text) returns setof api.clients
  language sql stable
  as $$ select c.* from api.clients c where c.country = country_code order by c.id $$;

create function api.client_names() returns setof text
  language sql stable
  as $$ select c.name from api.clients c order by c.id $$;

create function api.do_nothing() returns void
  language sql volatile
  as $$ select $$;

create function api.whoami() returns text
  language sql stable
  as $$ select current_user::text $$;

-- request.jwt.claims on PostgreSQL 14 and later; one setting per claim
-- (request.jwt.claim.sub) before.
create function api.jwt_sub() returns text
  language sql stable
  as $$
    select coalesce(
      nullif(current_setting('request.jwt.claims', true), '')::json ->> 'sub',
      nullif(current_setting('request.jwt.claim.sub', true), ''))
  $$;

create function api.webuser_secret() returns int
  language sql immutable
  as $$ select 42 $$;

create function v2.project_titles() returns setof text
  language sql stable
  as $$ select p.title from v2.projects p order by p.id $$;

create table api.member_notes (
  id   int primary key,
  body text not null
);

insert into api.member_notes (id, body) values
  (1, 'Kick-off on Monday'),
  (2, 'Budget review moved to Q3'),
  (3, 'Release freeze starts 1 June');

-- Privileges: functions are executable by PUBLIC by default.
revoke execute on all functions in schema api, v2 from public;
grant execute on all functions in schema api, v2 to web_anon, webuser;
revoke execute on function api.webuser_secret() from web_anon;
grant select on api.member_notes to webuser;

commit;
