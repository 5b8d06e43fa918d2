-- Session state (tests/security/session_state_test.go): a function that
-- leaves on its connection whatever PostgreSQL keeps past a transaction.
-- Nothing of it may reach api.session_state (tests/fixtures/session_state.sql,
-- which shows what the connection holds) when another role calls that next
-- on the same connection.

create sequence api.leftover_seq;
grant usage on sequence api.leftover_seq to web_anon, webuser;

-- Every kind of session state a function can leave, each at session level
-- (no LOCAL): settings, a custom setting, a temporary table, a cursor that
-- outlives its transaction, LISTEN, an advisory lock, a sequence's
-- currval, and last the role.
create function api.leave_session_state() returns text language plpgsql as $$
begin
  set statement_timeout = '4321s';
  set lock_timeout = '1234s';
  set work_mem = '7777kB';
  set timezone = 'Pacific/Chatham';
  set datestyle = 'SQL, DMY';
  set intervalstyle = 'iso_8601';
  set bytea_output = 'escape';
  perform pg_catalog.set_config('app.tenant_id', 'tenant-of-anon', false);
  create temp table leftover_temp (secret text);
  insert into leftover_temp values ('LEFTOVER-TEMP-ROW');
  grant select on leftover_temp to public;
  execute 'declare leftover_cursor cursor with hold for select ''LEFTOVER-CURSOR-ROW''';
  listen leftover_channel;
  perform pg_catalog.pg_advisory_lock(4242);
  perform pg_catalog.nextval('api.leftover_seq');
  set role webuser;
  return 'left';
end
$$;

-- A statement timeout short enough to cancel anything that waits.
create function api.leave_short_statement_timeout() returns text language plpgsql as $$
begin
  set statement_timeout = '5ms';
  return 'left';
end
$$;

-- A call that takes longer than that timeout.
create function api.take_a_while() returns text language plpgsql as $$
begin
  perform pg_catalog.pg_sleep(0.05);
  return 'done';
end
$$;

revoke all on function api.leave_session_state(), api.leave_short_statement_timeout(),
  api.take_a_while() from public;
grant execute on function api.leave_session_state(), api.leave_short_statement_timeout() to web_anon;
grant execute on function api.take_a_while() to webuser;
