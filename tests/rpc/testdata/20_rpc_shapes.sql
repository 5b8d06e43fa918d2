-- Fixture of the call-shape tests (tests/rpc/shapes_test.go and
-- bodies_test.go): functions taking a raw body through a single unnamed
-- parameter, functions returning OUT parameters, TABLE columns, records and
-- domains over row types, char(n) and bit(n) parameters, and variadic ones.
-- Loaded after 10_rpc.sql: api.books and api.shelves are there.

-- Single unnamed parameters ------------------------------------------------

-- text/plain, text/xml and application/octet-stream bodies.
create function api.unnamed_text_param(text) returns text
language sql immutable
as $$ select 'got: ' || $1 $$;

create function api.raw_xml(xml) returns text
language sql immutable
as $$ select (xpath('/note/to/text()', $1))[1]::text $$;

create function api.raw_bytes(bytea) returns text
language sql immutable
as $$ select octet_length($1) || ' bytes, ' || encode($1, 'hex') $$;

-- Not callable: a single unnamed integer parameter takes no body, so
-- PostgREST leaves the function out of /rpc altogether.
create function api.unnamed_int_param(integer) returns integer
language sql immutable
as $$ select $1 $$;

-- Overloads: named parameters first, the unnamed ones by Content-Type.
create function api.shape_overloaded() returns integer
language sql immutable
as $$ select 1 $$;

create function api.shape_overloaded(x integer, y integer) returns integer
language sql immutable
as $$ select x + y $$;

create function api.shape_overloaded(json) returns json
language sql immutable
as $$ select $1 $$;

create function api.shape_overloaded(text) returns text
language sql immutable
as $$ select 'text: ' || $1 $$;

create function api.shape_overloaded(bytea) returns text
language sql immutable
as $$ select 'bytes: ' || octet_length($1) $$;

-- A json and a jsonb overload cannot be told apart.
create function api.json_or_jsonb(json) returns text
language sql immutable
as $$ select 'json' $$;

create function api.json_or_jsonb(jsonb) returns text
language sql immutable
as $$ select 'jsonb' $$;

-- Result shapes --------------------------------------------------------------

-- One OUT parameter: an object, as PostgREST returns it.
create function api.single_out(num integer, out num_plus_one integer)
language sql immutable
as $$ select num + 1 $$;

create function api.single_inout(inout num integer)
language sql immutable
as $$ select num + 1 $$;

create function api.many_out(out a integer, out b text)
language sql immutable
as $$ select 1, 'two' $$;

-- A TABLE of one column: rows of objects.
create function api.single_column_table() returns table (a text)
language sql immutable
as $$ values ('A'), ('B') $$;

-- Records without OUT parameters keep the column names of the query.
create function api.one_record() returns record
language sql stable
as $$ select id, title from api.books where id = 1 $$;

create function api.some_records() returns setof record
language sql stable
as $$ select id, title from api.books where id <= 2 order by id $$;

-- Domains over a table's row type and over a composite type.
create domain api.book_row as api.books;
create type api.point2 as (x integer, y integer);
create domain api.point_domain as api.point2;

create function api.book_as_domain(id integer) returns api.book_row
language sql stable
as $$ select b from api.books b where b.id = book_as_domain.id $$;

create function api.point_as_domain() returns api.point_domain
language sql immutable
as $$ select row(10, 5)::api.point2 $$;

create function api.books_as_domain() returns setof api.book_row
language sql stable
as $$ select b from api.books b order by b.id $$;

-- Argument types -------------------------------------------------------------

-- character(n) and bit(n) take values of any length, as the parameters
-- keep no length; char_param shows what arrived.
create function api.char_param(c char(4), cs char(4)[]) returns table (c text, cs text[])
language sql immutable
as $$ select c::text, cs::text[] $$;

create function api.bit_param(b bit(4), bs bit(4)[]) returns table (b text, bs text[])
language sql immutable
as $$ select b::text, bs::text[] $$;

-- A variadic text parameter, and a plain one beside it.
create function api.join_words(sep text, variadic words text[] default '{}') returns text
language sql immutable
as $$ select array_to_string(words, sep) $$;

-- A variadic parameter alone, to leave out for its default.
create function api.words(variadic words text[] default '{}') returns text
language sql immutable
as $$ select array_to_string(words, ' ') $$;

-- A set of scalars, to count.
create function api.numbers(n integer) returns setof integer
language sql immutable
as $$ select generate_series(1, n) $$;

-- RAISE SQLSTATE 'PGRST' with JSON PostgREST cannot use (PGRST121).
create function api.raise_bad_message() returns void
language plpgsql
as $$ begin raise sqlstate 'PGRST' using message = 'not json', detail = '{"status": 400, "headers": {}}'; end $$;

create function api.raise_bad_detail() returns void
language plpgsql
as $$ begin raise sqlstate 'PGRST' using message = '{"code": "123", "message": "m"}', detail = '{"status": "x"}'; end $$;

create function api.raise_no_detail() returns void
language plpgsql
as $$ begin raise sqlstate 'PGRST' using message = '{"code": "123", "message": "m"}'; end $$;

create function api.raise_custom() returns void
language plpgsql
as $$ begin raise sqlstate 'PGRST' using
  message = '{"code": "123", "message": "Payment Required", "details": "Quota exceeded", "hint": "Upgrade your plan"}',
  detail = '{"status": 402, "headers": {"X-Powered-By": "Nerd Rage"}}'; end $$;
