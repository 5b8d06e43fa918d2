-- Fixture of the function-call tests (tests/rpc). TestMain loads the roles
-- (authenticator, web_anon, webuser: demo/roles.sql) and demo/schema.sql
-- first: the exposed schema api with todos and announcements, and the login
-- pattern (basic_auth.users, basic_auth.sign, api.login). This file adds the
-- database's token secret and functions of
-- every kind PostgREST v12 calls at /rpc/<name>, over a table of books and
-- the shelves they stand on (for embedding).
--
-- Tests that write delete what they wrote: books 1-5 and shelves 1-3 are
-- the data every test may count on.

-- The secret api.login signs with; tests/rpc's jwtSecret is the same text.
do $$
begin
  execute format('alter database %I set app.jwt_secret = %L', current_database(),
                 'pgrest-rpc-tests-secret-long-enough-0123456789');
end
$$;

-- Data -------------------------------------------------------------------

create type api.genre as enum ('fiction', 'poetry', 'science');

create table api.shelves (
  id   int primary key,
  name text not null
);

create table api.books (
  id        serial primary key,
  title     text not null unique,
  shelf_id  int references api.shelves (id),
  genre     api.genre not null default 'fiction',
  pages     int not null default 100,
  published date
);

insert into api.shelves values (1, 'hall'), (2, 'study'), (3, 'attic');
insert into api.books (id, title, shelf_id, genre, pages, published) values
  (1, 'Dune',            1, 'fiction', 412, '1965-08-01'),
  (2, 'Leaves of Grass', 2, 'poetry',   95, '1855-07-04'),
  (3, 'Cosmos',          2, 'science', 365, '1980-10-12'),
  (4, 'Emma',            1, 'fiction', 474, '1815-12-23'),
  (5, 'Odes',            3, 'poetry',   60, null);
select setval('api.books_id_seq', 5);

grant select on api.shelves, api.books to web_anon, webuser;
grant insert on api.books to web_anon, webuser;
grant usage on sequence api.books_id_seq to web_anon, webuser;

-- A schema that is not exposed, reached only through a function's own
-- search_path.
create schema rpc_private;
create table rpc_private.labels (id int primary key, label text not null);
insert into rpc_private.labels values (1, 'kept out of the API');
grant usage on schema rpc_private to web_anon;
grant select on rpc_private.labels to web_anon;

-- Scalar results and argument conversion -----------------------------------

create function api.add_them(a integer, b integer) returns integer
language sql immutable
as $$ select a + b $$;

create function api.echo(t text) returns text
language sql immutable
as $$ select t $$;

create function api.array_sum(xs integer[]) returns integer
language sql immutable
as $$ select coalesce(sum(x), 0)::int from unnest(xs) as x $$;

create function api.json_get(doc jsonb, key text) returns jsonb
language sql immutable
as $$ select doc -> key $$;

create function api.json_kind(doc jsonb) returns text
language sql immutable
as $$ select jsonb_typeof(doc) $$;

create function api.negate(flag boolean) returns boolean
language sql immutable
as $$ select not flag $$;

create function api.next_day(d date) returns date
language sql immutable
as $$ select d + 1 $$;

create function api.genre_label(g api.genre) returns text
language sql immutable
as $$ select 'shelved under ' || g::text $$;

-- A default argument.
create function api.greet(name text, greeting text default 'Hello') returns text
language sql immutable
as $$ select greeting || ', ' || name $$;

-- A variadic parameter.
create function api.sum_all(variadic xs integer[]) returns integer
language sql immutable
as $$ select coalesce(sum(x), 0)::int from unnest(xs) as x $$;

-- A single unnamed json parameter takes the whole body.
create function api.whole_body(json) returns json
language sql immutable
as $$ select $1 $$;

-- A single named jsonb parameter: Prefer: params=single-object (removed in
-- PostgREST 13) does not pass it the whole body.
create function api.single_object(payload jsonb) returns jsonb
language sql immutable
as $$ select jsonb_build_object('got', payload) $$;

-- Overloads told apart by their argument names ...
create function api.pick(a integer) returns text
language sql immutable
as $$ select 'picked a' $$;

create function api.pick(b text) returns text
language sql immutable
as $$ select 'picked b' $$;

-- ... and overloads that cannot be (same name, different type).
create function api.overloaded(x integer) returns text
language sql immutable
as $$ select 'integer' $$;

create function api.overloaded(x text) returns text
language sql immutable
as $$ select 'text' $$;

-- Whether the call ran in a read-only transaction.
create function api.read_only_stable() returns text
language sql stable
as $$ select current_setting('transaction_read_only') $$;

create function api.read_only_volatile() returns text
language sql volatile
as $$ select current_setting('transaction_read_only') $$;

-- Composite results ----------------------------------------------------------

create type api.span as (lo integer, hi integer);

create function api.bounds(xs integer[]) returns api.span
language sql immutable
as $$ select min(x), max(x) from unnest(xs) as x $$;

create function api.book(id integer) returns api.books
language sql stable
as $$ select * from api.books where books.id = book.id $$;

-- Set-returning results ------------------------------------------------------

create function api.titles() returns setof text
language sql stable
as $$ select title from api.books where id <= 5 order by title $$;

create function api.books_on(shelf integer) returns setof api.books
language sql stable
as $$ select * from api.books where shelf_id = shelf order by id $$;

create function api.all_books() returns setof api.books
language sql stable
as $$ select * from api.books where id <= 5 order by id $$;

create function api.all_shelves() returns setof api.shelves
language sql stable
as $$ select * from api.shelves order by id $$;

create function api.shelf_pages() returns table (shelf text, books bigint, pages bigint)
language sql stable
as $$
  select s.name, count(b.id), coalesce(sum(b.pages), 0)
    from api.shelves s left join api.books b on b.shelf_id = s.id and b.id <= 5
   group by s.id, s.name
   order by s.id
$$;

-- No result --------------------------------------------------------------------

create function api.do_nothing() returns void
language sql volatile
as $$ select $$;

create function api.check_nothing() returns void
language sql stable
as $$ select $$;

-- Writes ---------------------------------------------------------------------------

create function api.add_book(title text, shelf integer default null) returns api.books
language sql volatile
as $$ insert into api.books (title, shelf_id) values (title, shelf) returning * $$;

create function api.add_books(titles text[]) returns setof api.books
language sql volatile
as $$ insert into api.books (title) select unnest(titles) returning * $$;

-- Writes a row, then fails: the row must not stay.
create function api.add_book_then_fail(title text) returns integer
language plpgsql volatile
as $$
begin
  insert into api.books (title) values (add_book_then_fail.title);
  raise exception 'refused %', add_book_then_fail.title using hint = 'the insert is undone';
end
$$;

-- PostgREST's RollbackSpec: a unique constraint checked at once, or, when
-- the function defers it, at the transaction's end.
create table api.deferrable_unique_constraint (col integer unique deferrable initially immediate);
grant select, insert on api.deferrable_unique_constraint to web_anon, webuser;

create function api.raise_constraint(deferred boolean default false) returns void
language plpgsql volatile
as $$
begin
  if deferred then
    set constraints all deferred;
  end if;
  insert into api.deferrable_unique_constraint values (1), (1);
end
$$;

-- Function settings -------------------------------------------------------------

-- Finds an unexposed table through its own search_path.
create function api.private_label(id integer) returns text
language sql stable
set search_path = rpc_private, pg_temp
as $$ select label from labels where labels.id = private_label.id $$;

-- Whether the request's search_path reaches the unexposed schema.
create function api.search_path_has_private() returns boolean
language sql stable
as $$ select 'rpc_private' = any (current_schemas(false)) $$;

-- Response status and headers set from SQL -----------------------------------------

create function api.make_thing() returns json
language plpgsql volatile
as $$
begin
  perform set_config('response.status', '201', true);
  perform set_config('response.headers', '[{"Location": "/things?id=eq.7"}, {"X-Thing": "made"}]', true);
  return '{"id": 7}';
end
$$;

create function api.bad_status() returns integer
language plpgsql volatile
as $$
begin
  perform set_config('response.status', 'not-a-number', true);
  return 1;
end
$$;

create function api.bad_headers() returns integer
language plpgsql volatile
as $$
begin
  perform set_config('response.headers', '{"X-Not": "an array"}', true);
  return 1;
end
$$;
