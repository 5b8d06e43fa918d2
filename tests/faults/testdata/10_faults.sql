-- Fixture of the fault-injection tests: a table the write load fills and a
-- function that holds a connection. The roles (the authenticator and the
-- anonymous web_anon) are demo/roles.sql's, which pgresttest.SetUp loads
-- first.

create schema api;
grant usage on schema api to web_anon;

-- Every write of the load tests carries its own key, so that each 201 can
-- be found in the table afterwards; the key is deliberately not unique, so
-- a write applied twice shows as two rows.
create table api.writes (
  id bigint generated always as identity primary key,
  key text not null,
  at timestamptz not null default clock_timestamp()
);
create index on api.writes (key);
grant select, insert on api.writes to web_anon;

-- Holds a pool connection for a while.
create function api.sleep(seconds double precision) returns double precision
language sql volatile
as $$ select seconds from pg_sleep(seconds) $$;
grant execute on function api.sleep(double precision) to web_anon;

-- Holds a pool connection until the test releases the advisory lock it
-- waits for (pgtest.HoldLock).
create function api.wait_for_lock(key bigint) returns int language sql volatile
as $$ select 1 from pg_advisory_xact_lock_shared(key) $$;
grant execute on function api.wait_for_lock(bigint) to web_anon;
