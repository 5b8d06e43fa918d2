-- Data representations on write: schema repr (served on its own, with
-- db_schemas repr) holds a table whose label_color column is reps.color of
-- fixtures.RepresentationDomainsSQL (loaded first by TestMain), a domain
-- with implicit casts from json and text and to json, as PostgREST's color
-- example. repr.reset() brings its rows back to the seed below.
create schema repr;
grant usage on schema repr to web_anon, webuser;

create table repr.todos (
  id          integer primary key,
  name        text not null,
  label_color reps.color default 255
);
grant select, insert, update, delete on repr.todos to web_anon, webuser;

-- The arguments of a function with a domain parameter: PostgREST passes
-- them through no representation (the domain's own input reads them).
create function repr.todos_colored(c reps.color) returns setof repr.todos language sql stable as $$
  select * from repr.todos where label_color = c order by id
$$;

create function repr.reset() returns void language sql as $$
  delete from repr.todos;
  insert into repr.todos values (1, 'Report', 0), (2, 'Essay', 256), (3, 'Algebra', 123456);
$$;
select repr.reset();
