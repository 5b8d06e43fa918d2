-- The round trip fixture: a table to write and functions that write it.
-- The roles are demo/roles.sql's, which pgresttest.SetUp loads first.

create schema api;
grant usage on schema api to web_anon;

create table api.items (id int primary key, name text not null);
grant select, insert, update, delete on api.items to web_anon;

-- add_item and add_items write (VOLATILE): a call is a read-write
-- transaction.
create function api.add_item(id int, name text) returns api.items
language sql volatile as $$ insert into api.items values (id, name) returning * $$;
create function api.add_items(ids int[]) returns setof api.items
language sql volatile as $$ insert into api.items select i, 'item ' || i from unnest(ids) as i returning * $$;
-- touch writes and returns a number: a scalar call.
create function api.touch(id int) returns int
language sql volatile as $$ update api.items set name = name || '!' where items.id = touch.id returning items.id $$;
create function api.touch_all() returns setof int
language sql volatile as $$ update api.items set name = name || '!' returning items.id $$;
-- bad_headers writes, then sets a response.headers that is no array.
create function api.bad_headers(id int) returns int
language plpgsql volatile as $$
begin
  insert into api.items values (id, 'bad headers');
  perform set_config('response.headers', '{"not": "an array"}', true);
  return id;
end
$$;
grant execute on all functions in schema api to web_anon;

create schema private;
create function private.reset() returns void language sql as $$
  delete from api.items;
  insert into api.items values (1, 'one'), (2, 'two'), (3, 'three');
$$;
select private.reset();
