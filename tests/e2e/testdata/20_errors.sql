-- Fixtures of the error contract tests (errors_*_test.go). Every object is
-- named err_*. Functions run as the caller (SECURITY INVOKER), so the
-- switched role needs the privileges below.

create table api.err_items (id int primary key, name text not null);
create table api.err_parents (id int primary key);
create table api.err_children (id int primary key, parent_id int not null references api.err_parents (id));
create table api.err_log (id serial primary key, note text not null);
-- Nobody but the owner may read this one (42501).
create table api.err_secrets (id int primary key);

insert into api.err_items values (1, 'first');
insert into api.err_parents values (1);

grant select, insert on api.err_items, api.err_parents, api.err_children, api.err_log to web_anon, webuser;
grant usage on sequence api.err_log_id_seq to web_anon, webuser;

-- A view that is slow to read, for statement timeouts on GET and HEAD.
create view api.err_slow_view as select 1 as n from pg_sleep(2);
grant select on api.err_slow_view to web_anon, webuser;

-- Raises any SQLSTATE with a message, detail and hint derived from it.
create function api.err_raise(code text) returns void language plpgsql as $$
begin
  raise exception using errcode = code, message = 'err_raise ' || code,
    detail = 'detail of ' || code, hint = 'hint for ' || code;
end $$;

-- A plain RAISE: default code P0001, no detail, no hint.
create function api.err_plain() returns void language plpgsql as $$
begin
  raise exception 'boom';
end $$;

-- A condition raised by name.
create function api.err_insufficient() returns void language plpgsql as $$
begin
  raise insufficient_privilege using message = 'err_insufficient: not for you';
end $$;

-- A custom status through SQLSTATE PTxyz.
create function api.err_payment() returns void language plpgsql as $$
begin
  raise sqlstate 'PT402' using message = 'Payment Required', detail = 'Quota exceeded', hint = 'Upgrade your plan';
end $$;

-- RAISE SQLSTATE 'PGRST' with the given MESSAGE and, when not null, DETAIL.
create function api.err_pgrst(message text, detail text default null) returns void language plpgsql as $$
begin
  if detail is null then
    raise sqlstate 'PGRST' using message = message;
  end if;
  raise sqlstate 'PGRST' using message = message, detail = detail;
end $$;

-- Real causes.
create function api.err_divide(n int) returns int language plpgsql as $$
begin
  return 1 / n;
end $$;

create function api.err_missing_table() returns bigint language plpgsql as $$
begin
  return (select count(*) from api.err_no_such_table);
end $$;

create function api.err_missing_function() returns void language plpgsql as $$
begin
  perform api.err_no_such_function();
end $$;

create function api.err_item_add(id int, name text default null) returns void language sql as $$
  insert into api.err_items values (id, name);
$$;

create function api.err_child_add(id int, parent_id int) returns void language sql as $$
  insert into api.err_children values (id, parent_id);
$$;

create function api.err_read_secrets() returns bigint language sql as $$
  select count(*) from api.err_secrets;
$$;

-- Writes to the log, for read-only violations and for what a transaction keeps.
create function api.err_log_note(note text) returns int language sql as $$
  insert into api.err_log (note) values (note) returning id;
$$;

create function api.err_log_then_raise(note text) returns void language plpgsql as $$
begin
  insert into api.err_log (note) values (note);
  raise exception 'err_log_then_raise: failed after writing';
end $$;

create function api.err_log_then_status(note text, status text) returns int language plpgsql as $$
begin
  insert into api.err_log (note) values (note);
  perform set_config('response.status', status, true);
  return 1;
end $$;

-- Response settings.
create function api.err_set_headers(value text) returns text language plpgsql as $$
begin
  perform set_config('response.headers', value, true);
  return 'ok';
end $$;

create function api.err_set_status(value text) returns text language plpgsql as $$
begin
  perform set_config('response.status', value, true);
  return 'ok';
end $$;

-- Time.
create function api.err_sleep(seconds float8) returns int language plpgsql as $$
begin
  perform pg_sleep(seconds);
  return 1;
end $$;

-- A pre-request that gives the main statement a short statement timeout.
create function api.err_short_timeout() returns void language plpgsql as $$
begin
  perform set_config('statement_timeout', '300ms', true);
end $$;

-- Overloads the name and argument cannot tell apart.
create function api.err_overloaded(a int) returns int language sql as $$ select a $$;
create function api.err_overloaded(a text) returns text language sql as $$ select a $$;

-- A function for method checks.
create function api.err_fn() returns int language sql as $$ select 1 $$;
