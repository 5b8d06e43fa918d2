-- The operations tests: a function that holds a pool connection, for the
-- pool timeout and waiting metrics.
create function api.hold(seconds float8) returns int
language sql as $$ select 1 from pg_sleep(seconds) $$;
grant execute on function api.hold(float8) to web_anon, webuser;
