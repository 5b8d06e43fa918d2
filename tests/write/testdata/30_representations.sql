-- Data representations on write: schema repr (served on its own, with
-- db_schemas repr) holds a table whose label_color column is a domain with
-- implicit casts from json and text and to json, as PostgREST's color
-- example. repr.reset() brings its rows back to the seed below.
create schema repr;
grant usage on schema repr to web_anon, webuser;

create domain repr.color as integer check (value >= 0 and value <= 16777215);
create function repr.json(repr.color) returns json language sql immutable as $$
  select case when $1 is null then to_json(''::text)
              else to_json('#' || lpad(upper(to_hex($1)), 6, '0')) end
$$;
create function repr.color(text) returns repr.color language sql immutable as $$
  select (('x' || lpad(case when $1 like '#%' then substr($1, 2) else $1 end, 8, '0'))::bit(32)::int)::repr.color
$$;
create function repr.color(json) returns repr.color language sql immutable as $$
  select repr.color($1 #>> '{}')
$$;
create cast (repr.color as json) with function repr.json(repr.color) as implicit;
create cast (json as repr.color) with function repr.color(json) as implicit;
create cast (text as repr.color) with function repr.color(text) as implicit;

create table repr.todos (
  id          integer primary key,
  name        text not null,
  label_color repr.color default 255
);
grant select, insert, update, delete on repr.todos to web_anon, webuser;

-- The arguments of a function with a domain parameter: PostgREST passes
-- them through no representation (the domain's own input reads them).
create function repr.todos_colored(c repr.color) returns setof repr.todos language sql stable as $$
  select * from repr.todos where label_color = c order by id
$$;

create function repr.reset() returns void language sql as $$
  delete from repr.todos;
  insert into repr.todos values (1, 'Report', 0), (2, 'Essay', 256), (3, 'Algebra', 123456);
$$;
select repr.reset();
