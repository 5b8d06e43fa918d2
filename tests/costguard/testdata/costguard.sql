-- The cost guard's fixture: two tables of 100,000 rows whose cross join
-- the planner costs far over any limit, an indexed lookup it costs low, and
-- a function with a side effect whose declared COST puts its call over the
-- anonymous role's limit.
create extension if not exists pg_stat_statements;

create schema api;
grant usage on schema api to web_anon, webuser;

create table api.big_a (id int primary key, v int not null);
create table api.big_b (id int primary key, v int not null);
insert into api.big_a select g, g from generate_series(1, 100000) g;
insert into api.big_b select g, g from generate_series(1, 100000) g;
analyze api.big_a;
analyze api.big_b;

create view api.pairs as
select a.id as a_id, b.id as b_id from api.big_a a cross join api.big_b b;

create table api.effects (id serial primary key);

create function api.side_effect() returns int
language sql volatile cost 1000000 as $$
  insert into api.effects default values returning id
$$;

grant select on api.big_a, api.big_b, api.pairs, api.effects to web_anon, webuser;
grant insert, delete on api.effects to web_anon, webuser;
grant usage on sequence api.effects_id_seq to web_anon, webuser;
grant execute on function api.side_effect() to web_anon, webuser;

-- The anonymous role's own limit; webuser has none (db_max_cost is 0).
alter role web_anon set pgrst.db_max_cost = '1000';
